package policy

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"text/template/parse"
)

// The fast path of a rule's text: the parsed template walked directly on
// the data, with the template functions called without reflection. It
// covers what policies write (text, fields of the data, variables, the
// functions above, if, with, range over a list, pipelines) and gives what
// text/template gives there; on anything else it gives up and render runs
// text/template, which then prints the same or fails as it always did
// (the functions have no side effects, so running them twice changes
// nothing). A template it cannot cover at all is left to text/template
// when compiled. text/template costs most of a report's decision: each
// function call goes through reflect (FuzzFastText holds the two to the
// same output).

// errGiveUp stops the fast path: text/template decides.
var errGiveUp = errors.New("policy: the fast path gives up")

// noValue is what text/template calls an invalid value: a missing key,
// or nil once a pipeline is done with it.
type noValue struct{}

// kind is what a function's parameter takes.
type kind uint8

const (
	kAny kind = iota
	kString
	kInt
	kBool
)

// fastFunc is a template function called directly: its parameters, the
// kind of its variadic ones when it has them, and the call; text, for a
// function that returns a string, is the call without the string put in
// an interface (an allocation), for a pipeline whose value is printed.
type fastFunc struct {
	params   []kind
	variadic bool
	vkind    kind
	call     func(args []any) any
	text     func(args []any) string
}

// textFunc is a fastFunc that returns a string.
func textFunc(params []kind, variadic bool, vkind kind, text func(args []any) string) fastFunc {
	return fastFunc{params: params, variadic: variadic, vkind: vkind, text: text, call: func(a []any) any { return text(a) }}
}

// fastFuncs are the functions of funcs the fast path calls; a template
// that calls another (a builtin: and, len, printf…) runs on text/template.
var fastFuncs = map[string]fastFunc{
	"str":        textFunc([]kind{kAny}, false, 0, func(a []any) string { return str(a[0]) }),
	"list":       {variadic: true, vkind: kAny, call: func(a []any) any { return list(a...) }},
	"first":      textFunc(nil, true, kAny, func(a []any) string { return first(a...) }),
	"pick":       textFunc([]kind{kAny, kString}, false, 0, func(a []any) string { return pick(a[0], a[1].(string)) }),
	"pickList":   {params: []kind{kAny, kString}, call: func(a []any) any { return pickList(a[0], a[1].(string)) }},
	"default":    textFunc([]kind{kAny}, true, kAny, func(a []any) string { return defaultValue(a[0], a[1:]...) }),
	"join":       textFunc([]kind{kAny, kString}, false, 0, func(a []any) string { return join(a[0], a[1].(string)) }),
	"choices":    textFunc([]kind{kAny, kString}, false, 0, func(a []any) string { return choicesOf(a[0], a[1].(string)) }),
	"take":       {params: []kind{kInt, kAny}, call: func(a []any) any { return take(a[0].(int), a[1]) }},
	"quote":      textFunc([]kind{kAny}, false, 0, func(a []any) string { return quote(a[0]) }),
	"human":      textFunc([]kind{kAny}, false, 0, func(a []any) string { return human(a[0]) }),
	"capitalize": textFunc([]kind{kAny}, false, 0, func(a []any) string { return capitalize(a[0]) }),
	"lower":      textFunc([]kind{kAny}, false, 0, func(a []any) string { return lower(a[0]) }),
	"oneOf": {params: []kind{kAny}, variadic: true, vkind: kString, call: func(a []any) any {
		var buf [8]string
		opts := buf[:0]
		for _, o := range a[1:] {
			opts = append(opts, o.(string))
		}
		return oneOf(a[0], opts...)
	}},
	"timeLike":  {variadic: true, vkind: kAny, call: func(a []any) any { return timeLike(a...) }},
	"altChart":  textFunc([]kind{kAny, kBool}, false, 0, func(a []any) string { return altChart(a[0], a[1].(bool)) }),
	"frequency": textFunc([]kind{kAny}, false, 0, func(a []any) string { return frequency(a[0]) }),
	"duration":  textFunc([]kind{kAny}, false, 0, func(a []any) string { return duration(a[0]) }),
}

// argKind is the kind of a call's i-th argument of n, or false when the
// function does not take n arguments.
func (f *fastFunc) argKind(i, n int) (kind, bool) {
	if n < len(f.params) || !f.variadic && n != len(f.params) {
		return 0, false
	}
	if i < len(f.params) {
		return f.params[i], true
	}
	return f.vkind, true
}

// fastable reports whether the fast path covers every node of a tree.
func fastable(root *parse.ListNode) bool {
	var (
		list    func(l *parse.ListNode) bool
		pipe    func(p *parse.PipeNode, rangeOf bool) bool
		command func(c *parse.CommandNode, piped bool) bool
		arg     func(n parse.Node, k kind) bool
	)
	pipe = func(p *parse.PipeNode, rangeOf bool) bool {
		if p == nil || len(p.Cmds) == 0 || len(p.Decl) > 1 || rangeOf && len(p.Decl) > 0 {
			return false
		}
		for i, c := range p.Cmds {
			if !command(c, i > 0) {
				return false
			}
		}
		return true
	}
	arg = func(n parse.Node, k kind) bool {
		switch n := n.(type) {
		case *parse.DotNode, *parse.FieldNode, *parse.VariableNode:
			return true
		case *parse.PipeNode:
			return pipe(n, false)
		case *parse.IdentifierNode:
			f, ok := fastFuncs[n.Ident]
			_, arity := f.argKind(0, 0)
			return ok && arity
		case *parse.StringNode:
			return k == kAny || k == kString
		case *parse.BoolNode:
			return k == kAny || k == kBool
		case *parse.NumberNode:
			return (k == kAny || k == kInt) && plainInt(n)
		case *parse.NilNode:
			return k == kAny
		}
		return false
	}
	command = func(c *parse.CommandNode, piped bool) bool {
		if id, ok := c.Args[0].(*parse.IdentifierNode); ok {
			f, ok := fastFuncs[id.Ident]
			if !ok {
				return false
			}
			n := len(c.Args) - 1
			if piped {
				n++
			}
			for i, a := range c.Args[1:] {
				k, ok := f.argKind(i, n)
				if !ok || !arg(a, k) {
					return false
				}
			}
			_, ok = f.argKind(0, n)
			return ok
		}
		if piped || len(c.Args) != 1 {
			return false // text/template: an argument to a non-function
		}
		switch n := c.Args[0].(type) {
		case *parse.DotNode, *parse.FieldNode, *parse.VariableNode, *parse.StringNode, *parse.BoolNode:
			return true
		case *parse.NumberNode:
			return plainInt(n)
		case *parse.PipeNode:
			return pipe(n, false)
		}
		return false
	}
	list = func(l *parse.ListNode) bool {
		if l == nil {
			return true
		}
		for _, n := range l.Nodes {
			ok := false
			switch n := n.(type) {
			case *parse.TextNode, *parse.CommentNode:
				ok = true
			case *parse.ActionNode:
				ok = pipe(n.Pipe, false)
			case *parse.IfNode:
				ok = pipe(n.Pipe, false) && list(n.List) && list(n.ElseList)
			case *parse.WithNode:
				ok = pipe(n.Pipe, false) && list(n.List) && list(n.ElseList)
			case *parse.RangeNode:
				ok = pipe(n.Pipe, true) && list(n.List) && list(n.ElseList)
			}
			if !ok {
				return false
			}
		}
		return true
	}
	return list(root)
}

// plainInt reports whether a number is written as a decimal integer that
// fits an int, which text/template passes as an int.
func plainInt(n *parse.NumberNode) bool {
	if !n.IsInt || n.Text == "" {
		return false
	}
	for i := 0; i < len(n.Text); i++ {
		if c := n.Text[i]; c < '0' || c > '9' {
			return false
		}
	}
	_, err := strconv.Atoi(n.Text)
	return err == nil
}

// fastState is one run of the fast path.
type fastState struct {
	buf    *bytes.Buffer
	vars   []fastVar
	args   []any
	consts map[*parse.StringNode]any
}

// stringConsts are the string literals of a tree, each put in an
// interface once (fastState.consts) rather than at each use.
func stringConsts(root *parse.ListNode) map[*parse.StringNode]any {
	consts := map[*parse.StringNode]any{}
	var node func(n parse.Node)
	pipe := func(p *parse.PipeNode) {
		if p != nil {
			for _, c := range p.Cmds {
				for _, a := range c.Args {
					node(a)
				}
			}
		}
	}
	node = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.StringNode:
			consts[n] = n.Text
		case *parse.PipeNode:
			pipe(n)
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					node(c)
				}
			}
		case *parse.ActionNode:
			pipe(n.Pipe)
		case *parse.IfNode:
			pipe(n.Pipe)
			node(n.List)
			node(n.ElseList)
		case *parse.WithNode:
			pipe(n.Pipe)
			node(n.List)
			node(n.ElseList)
		case *parse.RangeNode:
			pipe(n.Pipe)
			node(n.List)
			node(n.ElseList)
		}
	}
	node(root)
	return consts
}

// str is a string literal as an interface.
func (s *fastState) str(n *parse.StringNode) any {
	if v, ok := s.consts[n]; ok {
		return v
	}
	return n.Text
}

type fastVar struct {
	name string
	val  any
}

var fastStates = sync.Pool{New: func() any { return &fastState{vars: make([]fastVar, 0, 8), args: make([]any, 0, 16)} }}

// fastRender writes the template's output on data to buf, or gives up
// (errGiveUp; buf then holds part of it). consts are stringConsts(root),
// or nil.
func fastRender(root *parse.ListNode, consts map[*parse.StringNode]any, buf *bytes.Buffer, data map[string]any) (err error) {
	s := fastStates.Get().(*fastState)
	defer func() {
		if v := recover(); v != nil {
			err = errGiveUp // a function panicked: text/template reports it
		}
		clear(s.vars[:cap(s.vars)])
		clear(s.args[:cap(s.args)])
		s.vars, s.args, s.buf, s.consts = s.vars[:0], s.args[:0], nil, nil
		fastStates.Put(s)
	}()
	s.buf, s.consts = buf, consts
	s.vars = append(s.vars, fastVar{"$", data})
	return s.walk(data, root)
}

func (s *fastState) walk(dot any, l *parse.ListNode) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		switch n := n.(type) {
		case *parse.TextNode:
			s.buf.Write(n.Text)
		case *parse.CommentNode:
		case *parse.ActionNode:
			if len(n.Pipe.Decl) == 0 {
				if err := s.print(dot, n.Pipe); err != nil {
					return err
				}
				continue
			}
			if _, err := s.pipeline(dot, n.Pipe); err != nil {
				return err
			}
		case *parse.IfNode:
			if err := s.ifOrWith(dot, n.Pipe, n.List, n.ElseList, false); err != nil {
				return err
			}
		case *parse.WithNode:
			if err := s.ifOrWith(dot, n.Pipe, n.List, n.ElseList, true); err != nil {
				return err
			}
		case *parse.RangeNode:
			if err := s.rangeOf(dot, n); err != nil {
				return err
			}
		default:
			return errGiveUp
		}
	}
	return nil
}

func (s *fastState) ifOrWith(dot any, p *parse.PipeNode, list, elseList *parse.ListNode, with bool) error {
	mark := len(s.vars)
	defer func() { s.vars = s.vars[:mark] }()
	v, err := s.pipeline(dot, p)
	if err != nil {
		return err
	}
	t, ok := truth(v)
	switch {
	case !ok:
		return errGiveUp
	case t && with:
		return s.walk(v, list)
	case t:
		return s.walk(dot, list)
	}
	return s.walk(dot, elseList)
}

func (s *fastState) rangeOf(dot any, r *parse.RangeNode) error {
	mark := len(s.vars)
	defer func() { s.vars = s.vars[:mark] }()
	v, err := s.pipeline(dot, r.Pipe)
	if err != nil {
		return err
	}
	n := 0
	switch x := v.(type) {
	case []string:
		for _, e := range x {
			if err := s.walk(e, r.List); err != nil {
				return err
			}
			s.vars = s.vars[:mark]
		}
		n = len(x)
	case []any:
		for _, e := range x {
			if err := s.walk(e, r.List); err != nil {
				return err
			}
			s.vars = s.vars[:mark]
		}
		n = len(x)
	case noValue:
	default:
		return errGiveUp // a map (sorted keys), an integer, a function…
	}
	if n == 0 {
		return s.walk(dot, r.ElseList)
	}
	return nil
}

// truth is text/template's isTrue for the values the fast path knows.
func truth(v any) (t, ok bool) {
	switch x := v.(type) {
	case noValue:
		return false, true
	case string:
		return x != "", true
	case bool:
		return x, true
	case int:
		return x != 0, true
	case float64:
		return x != 0, true
	case []string:
		return len(x) > 0, true
	case []any:
		return len(x) > 0, true
	case map[string]any:
		return len(x) > 0, true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() { // an int64 of the fault, a number of a context built in code
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0, true
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0, true
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() > 0, true
	case reflect.Bool:
		return rv.Bool(), true
	}
	return false, false
}

// pipeline evaluates a pipeline: its commands in turn, each given the
// value of the one before as its last argument; nil becomes noValue once
// a command is done, as text/template unwraps an interface.
func (s *fastState) pipeline(dot any, p *parse.PipeNode) (any, error) {
	var v any
	for i, c := range p.Cmds {
		var err error
		if v, err = s.command(dot, c, v, i > 0); err != nil {
			return nil, err
		}
		if v == nil {
			v = noValue{}
		}
	}
	for _, d := range p.Decl {
		if p.IsAssign {
			for i := len(s.vars) - 1; i >= 0; i-- {
				if s.vars[i].name == d.Ident[0] {
					s.vars[i].val = v
					break
				}
			}
			continue
		}
		s.vars = append(s.vars, fastVar{d.Ident[0], v})
	}
	return v, nil
}

// print evaluates a pipeline that declares nothing and prints its value,
// which must be a string: as pipeline does, but a last command that calls
// a function returning a string (the str guard, most often) has it
// written without putting it in an interface.
func (s *fastState) print(dot any, p *parse.PipeNode) error {
	last := len(p.Cmds) - 1
	var v any
	for i, c := range p.Cmds[:last] {
		var err error
		if v, err = s.command(dot, c, v, i > 0); err != nil {
			return err
		}
		if v == nil {
			v = noValue{}
		}
	}
	if id, ok := p.Cmds[last].Args[0].(*parse.IdentifierNode); ok {
		if f, ok := fastFuncs[id.Ident]; ok && f.text != nil {
			args, err := s.pushArgs(dot, &f, p.Cmds[last].Args[1:], v, last > 0)
			if err != nil {
				return err
			}
			s.buf.WriteString(f.text(args))
			s.args = s.args[:len(s.args)-len(args)]
			return nil
		}
	}
	v, err := s.command(dot, p.Cmds[last], v, last > 0)
	if err != nil {
		return err
	}
	text, ok := v.(string)
	if !ok {
		return errGiveUp
	}
	s.buf.WriteString(text)
	return nil
}

func (s *fastState) command(dot any, c *parse.CommandNode, final any, piped bool) (any, error) {
	switch n := c.Args[0].(type) {
	case *parse.IdentifierNode:
		return s.call(dot, n.Ident, c.Args[1:], final, piped)
	case *parse.DotNode:
		return dot, nil
	case *parse.FieldNode:
		return fields(dot, n.Ident)
	case *parse.VariableNode:
		return s.variable(n)
	case *parse.PipeNode:
		return s.pipeline(dot, n)
	case *parse.StringNode:
		return s.str(n), nil
	case *parse.BoolNode:
		return n.True, nil
	case *parse.NumberNode:
		return int(n.Int64), nil
	}
	return nil, errGiveUp
}

func (s *fastState) variable(n *parse.VariableNode) (any, error) {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == n.Ident[0] {
			return fields(s.vars[i].val, n.Ident[1:])
		}
	}
	return nil, errGiveUp // undefined: text/template says so
}

// fields follows a chain of fields from v: a map's member, noValue when
// it has none; past noValue, noValue. Anything else (a field of nil, of a
// string…) is text/template's error to make.
func fields(v any, names []string) (any, error) {
	for _, name := range names {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[name]
			if !ok {
				e = noValue{}
			}
			v = e
		case noValue:
		default:
			return nil, errGiveUp
		}
	}
	return v, nil
}

// call calls a function with the arguments of its command and, when
// piped, the value before it.
func (s *fastState) call(dot any, name string, argNodes []parse.Node, final any, piped bool) (any, error) {
	f, ok := fastFuncs[name]
	if !ok {
		return nil, errGiveUp
	}
	args, err := s.pushArgs(dot, &f, argNodes, final, piped)
	if err != nil {
		return nil, err
	}
	v := f.call(args)
	s.args = s.args[:len(s.args)-len(args)]
	return v, nil
}

// pushArgs evaluates the arguments of a call to f (and the value piped to
// it) onto s.args, and returns them: the caller takes them off once the
// call returns. On an error they are off already.
func (s *fastState) pushArgs(dot any, f *fastFunc, argNodes []parse.Node, final any, piped bool) ([]any, error) {
	n := len(argNodes)
	if piped {
		n++
	}
	base := len(s.args)
	for range n {
		s.args = append(s.args, nil)
	}
	for i, a := range argNodes {
		k, _ := f.argKind(i, n)
		v, err := s.arg(dot, a, k)
		if err != nil {
			s.args = s.args[:base]
			return nil, err
		}
		s.args[base+i] = v
	}
	if piped {
		k, _ := f.argKind(n-1, n)
		v, err := convert(final, k)
		if err != nil {
			s.args = s.args[:base]
			return nil, err
		}
		s.args[base+n-1] = v
	}
	return s.args[base : base+n], nil
}

func (s *fastState) arg(dot any, n parse.Node, k kind) (any, error) {
	var v any
	var err error
	switch n := n.(type) {
	case *parse.StringNode:
		return s.str(n), nil
	case *parse.BoolNode:
		return n.True, nil
	case *parse.NumberNode:
		return int(n.Int64), nil
	case *parse.NilNode:
		return nil, nil
	case *parse.DotNode:
		v = dot
	case *parse.FieldNode:
		v, err = fields(dot, n.Ident)
	case *parse.VariableNode:
		v, err = s.variable(n)
	case *parse.PipeNode:
		v, err = s.pipeline(dot, n)
	case *parse.IdentifierNode:
		v, err = s.call(dot, n.Ident, nil, nil, false)
		if v == nil {
			v = noValue{}
		}
	default:
		return nil, errGiveUp
	}
	if err != nil {
		return nil, err
	}
	return convert(v, k)
}

// convert is text/template's check of a value given to a parameter: to an
// any, noValue is nil; to a string, an int or a bool, only that type.
func convert(v any, k kind) (any, error) {
	if _, ok := v.(noValue); ok {
		if k == kAny {
			return nil, nil
		}
		return nil, errGiveUp
	}
	ok := true
	switch k {
	case kString:
		_, ok = v.(string)
	case kInt:
		_, ok = v.(int)
	case kBool:
		_, ok = v.(bool)
	}
	if !ok {
		return nil, errGiveUp
	}
	return v, nil
}
