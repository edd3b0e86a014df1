package web

import (
	"encoding/json"

	"git-reason/record"
)

// lanes places each kind of record in its own column, in the order a task
// usually goes through them.
var lanes = []record.Kind{record.KindAssessment, record.KindPlan, record.KindConsultation,
	record.KindDisagreement, record.KindResolution, record.KindConclusion, record.KindValidation, record.KindAttempt,
	record.KindWithdrawal, record.KindClosure, record.KindReopening}

const (
	laneW, rowH  = 118, 34
	nodeW, nodeH = 108, 24
	margin       = 10
)

// graph is the record graph of one task, laid out for an inline SVG: one
// row per record in history order, one column per kind, an edge from each
// record to every record of the task it names.
type graph struct {
	Marker        string // the id of its arrowhead, unique in the page
	Width, Height int
	Lanes         []lane
	Nodes         []node
	Edges         []edge
}

type lane struct {
	X     int
	Label string
}

type node struct {
	ID, Label, Kind string
	Href            string // where the node leads: the record on its task's page (recordHref)
	Title           string // the record's one-line summary, shown on hover
	State           string // record.GraphNode's State, as a class
	X, Y, TX, TY    int
}

type edge struct {
	X1, Y1, X2, Y2 int
	Title          string
}

// drawGraph lays out st's records. References are found by meaning-free
// scanning: any string in a record's body or derived fields that is the id
// of another record of the task is an edge, so a new field that cites a
// record shows without changing this code.
func drawGraph(st *record.State) graph {
	g, col := newGraph("arrow", len(st.Entries))
	at := map[string]node{}
	for i, e := range st.Entries {
		x, y := margin+col[e.Kind]*laneW, margin+20+i*rowH
		n := node{ID: e.ID, Kind: string(e.Kind), Label: shortID(e.ID), Href: "#rec-" + e.ID, Title: record.Summary(e),
			X: x, Y: y, TX: x + nodeW/2, TY: y + nodeH/2 + 4}
		at[e.ID] = n
		g.Nodes = append(g.Nodes, n)
	}
	for _, e := range st.Entries {
		to := at[e.ID]
		seen := map[string]bool{}
		for _, raw := range []json.RawMessage{e.Record.Body, e.Record.Derived} {
			eachString(raw, func(s string) {
				from, ok := at[s]
				if !ok || s == e.ID || seen[s] {
					return
				}
				seen[s] = true
				g.Edges = append(g.Edges, edge{X1: from.X + nodeW/2, Y1: from.Y + nodeH, X2: to.X + nodeW/2, Y2: to.Y})
			})
		}
	}
	return g
}

// newGraph is an empty graph of rows records with its lanes, and the
// column of each kind.
func newGraph(marker string, rows int) (graph, map[record.Kind]int) {
	col := map[record.Kind]int{}
	g := graph{Marker: marker, Width: 2*margin + laneW*len(lanes), Height: 2*margin + 20 + rowH*rows}
	for i, k := range lanes {
		col[k] = i
		g.Lanes = append(g.Lanes, lane{X: margin + i*laneW + nodeW/2, Label: string(k)})
	}
	return g, col
}

// drawContextGraph lays out a task's graph as the context derives it
// (record.Graph: its edges lead from a record to one that answers it). A
// node of another task (a reused conclusion) leads to that task's page.
func drawContextGraph(task, marker string, rg record.Graph) graph {
	g, col := newGraph(marker, len(rg.Nodes))
	at := map[string]node{}
	for i, gn := range rg.Nodes {
		x, y := margin+col[gn.Kind]*laneW, margin+20+i*rowH
		t := task
		if gn.Task != "" {
			t = gn.Task
		}
		n := node{ID: gn.ID, Kind: string(gn.Kind), Label: shortID(gn.ID), Href: "/task/" + t + "?record=" + gn.ID + "#rec-" + gn.ID,
			Title: gn.Label, State: gn.State, X: x, Y: y, TX: x + nodeW/2, TY: y + nodeH/2 + 4}
		at[gn.ID] = n
		g.Nodes = append(g.Nodes, n)
	}
	for _, e := range rg.Edges {
		from, ok1 := at[e.From]
		to, ok2 := at[e.To]
		if !ok1 || !ok2 {
			continue
		}
		g.Edges = append(g.Edges, edge{X1: from.X + nodeW/2, Y1: from.Y + nodeH, X2: to.X + nodeW/2, Y2: to.Y, Title: e.Label})
	}
	return g
}

// eachString calls f with every string value in a JSON document.
func eachString(raw json.RawMessage, f func(string)) {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			f(t)
		case []any:
			for _, x := range t {
				walk(x)
			}
		case map[string]any:
			for _, x := range t {
				walk(x)
			}
		}
	}
	walk(v)
}
