package record

// Graph is a task's records as a flow: one node per record, and an edge
// from each record to the records that answer it (assessment to plan, plan
// to consultation, cited records to a disagreement, disagreement to its
// resolution, what a conclusion weighed or settled to the conclusion,
// conclusion to validation and attempt). It is a pure function of the
// records; renderers (a Mermaid flowchart, an SVG) draw it.
type Graph struct {
	Nodes []GraphNode `json:"nodes"`
	Edges []GraphEdge `json:"edges"`
}

// GraphNode is one record. A node of another task (the standing conclusion
// an assessment reuses) carries that task's name.
type GraphNode struct {
	ID    string `json:"id"`
	Kind  Kind   `json:"kind"`
	Label string `json:"label"` // the record's one-line summary
	// State marks what a reader should see at a glance: "open" (an
	// unsettled disagreement), "pass" or "fail" (a validation), "failed"
	// (a consultation or attempt), "claim" (a manual validation),
	// "withdrawn" (a validation or attempt a withdrawal names), or
	// "reused" (another task's conclusion).
	State string `json:"state,omitempty"`
	Task  string `json:"task,omitempty"`
}

// GraphEdge leads from a record to one that answers it; Label says how
// when there is more to say (a conclusion's treatment of a consultation).
type GraphEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label,omitempty"`
}

// Graph derives the task's record graph.
func (s *State) Graph() Graph {
	g := Graph{Nodes: []GraphNode{}, Edges: []GraphEdge{}}
	// edge draws from a record of this task only: a reference that names
	// none (a hand-made record) draws nothing.
	edge := func(from, to, label string) bool {
		if s.byID[from] == nil {
			return false
		}
		g.Edges = append(g.Edges, GraphEdge{From: from, To: to, Label: label})
		return true
	}
	for _, e := range s.Entries {
		g.Nodes = append(g.Nodes, GraphNode{ID: e.ID, Kind: e.Kind, Label: Summary(e), State: nodeState(s, e)})
		switch b := e.Body.(type) {
		case *Assessment:
			if d := e.Derived.(*AssessmentDerived); d.Reuses != "" && s.byID[d.Reuses] == nil {
				g.Nodes = append(g.Nodes, GraphNode{ID: d.Reuses, Kind: KindConclusion, Task: d.ReusesTask,
					Label: "standing conclusion of task " + d.ReusesTask, State: "reused"})
				g.Edges = append(g.Edges, GraphEdge{From: e.ID, To: d.Reuses, Label: "reuses"})
			} else if d.Reuses != "" {
				g.Edges = append(g.Edges, GraphEdge{From: e.ID, To: d.Reuses, Label: "reuses"})
			}
		case *Plan:
			edge(b.Assessment, e.ID, "")
		case *Consultation:
			edge(b.Plan, e.ID, "")
		case *Disagreement:
			drawn := false
			for _, c := range b.Cites {
				drawn = edge(c, e.ID, "") || drawn
			}
			if !drawn {
				edge(b.Assessment, e.ID, "")
			}
		case *Resolution:
			edge(b.Disagreement, e.ID, "settles")
		case *Conclusion:
			s.conclusionEdges(e, b, edge)
		case *Validation:
			edge(b.Conclusion, e.ID, "")
		case *Attempt:
			edge(b.Conclusion, e.ID, "")
		case *Withdrawal:
			edge(b.Record, e.ID, "withdraws")
		case *Reopening:
			edge(b.Closure, e.ID, "reopens")
		}
	}
	return g
}

// conclusionEdges leads to a conclusion from what it weighed and from the
// resolutions that settled its assessment's disagreements; with neither,
// from the plan it answers (its local review), else from its assessment.
func (s *State) conclusionEdges(e *Entry, b *Conclusion, edge func(from, to, label string) bool) {
	drawn := false
	for _, w := range b.Weighed {
		drawn = edge(w.Consultation, e.ID, w.Treatment) || drawn
	}
	for _, r := range s.all(KindResolution, nil) {
		d := s.byID[r.Body.(*Resolution).Disagreement]
		if Less(r.Record, e.Record) && d != nil && d.Kind == KindDisagreement && d.Body.(*Disagreement).Assessment == b.Assessment {
			drawn = edge(r.ID, e.ID, "") || drawn
		}
	}
	if drawn {
		return
	}
	if p := s.latestTo(KindPlan, b.Assessment, func(p *Entry) bool { return Less(p.Record, e.Record) }); p != nil {
		label := ""
		if len(b.LocalReview) > 0 {
			label = "local review"
		}
		edge(p.ID, e.ID, label)
		return
	}
	edge(b.Assessment, e.ID, "")
}

func nodeState(s *State, e *Entry) string {
	if (e.Kind == KindValidation || e.Kind == KindAttempt) && s.Withdrawn(e.ID) != nil {
		return "withdrawn"
	}
	switch b := e.Body.(type) {
	case *Consultation:
		if b.Status != "completed" {
			return "failed"
		}
	case *Disagreement:
		if s.IsOpenDisagreement(e.ID) {
			return "open"
		}
	case *Validation:
		if b.Method == "manual" {
			return "claim"
		}
		return e.Derived.(*ValidationDerived).Result
	case *Attempt:
		if b.Outcome == "failed" {
			return "failed"
		}
	}
	return ""
}
