package mcpserver

import (
	"context"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"git-reason/record"
)

// taskURIPrefix starts every task report's URI: reason://task/{task}.
const taskURIPrefix = "reason://task/"

// handlers binds every implemented tool.
func (s *Server) handlers() map[string]*tool {
	out := map[string]*tool{}
	read, err := s.readTools()
	if err != nil {
		panic(err) // the embedded schemas are fixed at build time; a test builds every tool
	}
	write, err := s.writeTools()
	if err != nil {
		panic(err)
	}
	life, err := s.lifeTools()
	if err != nil {
		panic(err)
	}
	for k, v := range life {
		out[k] = v
	}
	for k, v := range read {
		out[k] = v
	}
	for k, v := range write {
		out[k] = v
	}
	return out
}

// addResources offers each task's markdown report as a resource: listed
// (one per task, read from the refs at the time of the call) and readable
// through the template reason://task/{task}.
func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "task-report",
		Title:       "Task report",
		Description: "A task's reasoning as markdown: the question, the plan, each advisor's answer, disagreements, the conclusion and its checks.",
		MIMEType:    "text/markdown",
		URITemplate: taskURIPrefix + "{task}",
	}, s.readReport)
	s.sdk.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "resources/list" {
				return next(ctx, method, req)
			}
			return s.listReports(ctx)
		}
	})
}

func (s *Server) listReports(ctx context.Context) (*mcp.ListResourcesResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.catchUp(ctx)
	all, err := s.env.StatusAll(ctx)
	if err != nil {
		return nil, err
	}
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	res.CacheScope = "public" // as the SDK fills it for the lists it builds
	for _, st := range all {
		res.Resources = append(res.Resources, &mcp.Resource{
			URI:         taskURIPrefix + url.PathEscape(st.Task),
			Name:        st.Task,
			Title:       "Reasoning: " + st.Task,
			Description: record.Printable(string(st.Phase) + ": " + st.Subject),
			MIMEType:    "text/markdown",
		})
	}
	return res, nil
}

func (s *Server) readReport(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	task, err := url.PathUnescape(strings.TrimPrefix(uri, taskURIPrefix))
	if err != nil || !strings.HasPrefix(uri, taskURIPrefix) || record.CheckTask(task) != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.catchUp(ctx)
	if exists, err := s.taskExists(task); err != nil {
		return nil, err
	} else if !exists {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	st, _, err := s.env.State(ctx, task)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: uri, MIMEType: "text/markdown", Text: shown(st.ToolReport()),
	}}}, nil
}
