package policy

import (
	_ "embed"
	"slices"
	"text/template"
	"text/template/parse"
)

// needs says which variables a template reads, so that Decide
// builds only those: one bit per variable, or needAll.
type needs uint16

// varNames are the variables, in the order of their bits.
var varNames = [...]string{"report", "error_type", "error_code", "message", "context", "classification",
	"cause", "attempt", "max_attempts", "fault"}

const needAll needs = 1<<len(varNames) - 1

func (n *needs) add(name string) {
	if i := slices.Index(varNames[:], name); i >= 0 {
		*n |= 1 << i
	}
}

// needsOf finds the variables a template reads: the fields of dot
// where dot is the data, and of $ anywhere. When it cannot tell (dot passed
// on whole, or templates defined within), it needs them all.
func needsOf(t *template.Template) needs {
	if len(t.Templates()) > 1 {
		return needAll
	}
	var n needs
	var walk func(node parse.Node, root bool)
	var pipe func(p *parse.PipeNode, root bool)
	arg := func(a parse.Node, root bool) {
		switch a := a.(type) {
		case *parse.FieldNode:
			if root {
				n.add(a.Ident[0])
			}
		case *parse.VariableNode:
			switch {
			case a.Ident[0] != "$":
			case len(a.Ident) > 1:
				n.add(a.Ident[1])
			default:
				n = needAll
			}
		case *parse.DotNode:
			if root {
				n = needAll
			}
		case *parse.ChainNode:
			walk(a.Node, root)
		case *parse.PipeNode:
			pipe(a, root)
		}
	}
	pipe = func(p *parse.PipeNode, root bool) {
		if p == nil {
			return
		}
		for _, c := range p.Cmds {
			for _, a := range c.Args {
				arg(a, root)
			}
		}
	}
	walk = func(node parse.Node, root bool) {
		switch x := node.(type) {
		case *parse.ListNode:
			if x != nil {
				for _, c := range x.Nodes {
					walk(c, root)
				}
			}
		case *parse.ActionNode:
			pipe(x.Pipe, root)
		case *parse.IfNode:
			pipe(x.Pipe, root)
			walk(x.List, root)
			walk(x.ElseList, root)
		case *parse.WithNode: // dot is the pipeline's value inside, unchanged in else
			pipe(x.Pipe, root)
			walk(x.List, false)
			walk(x.ElseList, root)
		case *parse.RangeNode:
			pipe(x.Pipe, root)
			walk(x.List, false)
			walk(x.ElseList, root)
		case *parse.TemplateNode:
			n = needAll
		default:
			arg(node, root)
		}
	}
	walk(t.Root, true)
	return n
}

// templateData is what a template sees, under the same names as the
// conditions; only the variables in needs are filled in.
func (v *vars) templateData(needs needs) map[string]any {
	data := make(map[string]any, 4)
	for i, name := range varNames {
		if needs&(1<<i) == 0 {
			continue
		}
		switch name {
		case "report":
			data[name] = map[string]any{
				"agent_id": v.report.AgentID, "error_type": v.report.ErrorType, "error_code": v.report.ErrorCode,
				"message": v.report.Message, "query_id": v.report.QueryID, "context": v.context,
			}
		case "error_type":
			data[name] = v.class.Type
		case "error_code":
			data[name] = v.report.ErrorCode
		case "message":
			data[name] = v.report.Message
		case "context":
			data[name] = v.context
		case "classification":
			data[name] = map[string]any{
				"type": v.class.Type, "confidence": v.class.Confidence, "method": v.class.Method, "rule": v.class.Rule,
			}
		case "cause":
			data[name] = map[string]any{"cause": v.cause.Cause, "confidence": v.cause.Confidence, "evidence": v.cause.Evidence}
		case "attempt":
			data[name] = v.in.Attempt
		case "max_attempts":
			data[name] = v.maxAttempts
		case "fault":
			data[name] = map[string]any{
				"code": v.fault.Code, "retryable": v.fault.Retryable, "retry_after": v.fault.RetryAfter,
				"http_status": v.fault.HTTPStatus, "category": v.fault.Category, "domain": v.fault.Domain,
				"session_valid": v.fault.SessionValid,
			}
		}
	}
	return data
}
