package policy

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"unicode"
	"unicode/utf8"

	"github.com/triage-go/triage"
)

// text is a rule's message and suggestions, compiled into one
// template so that the suggestions see the variables the message declares:
// its parts are joined by partSep.
type text struct {
	tmpl   *template.Template        // nil when the text has no actions
	fast   bool                      // the fast path covers tmpl (fast.go)
	consts map[*parse.StringNode]any // its string literals, for the fast path
	static []string                  // the parts, when it has none
	parts  int
	starts []int // the first line of each part in the template's source
	needs  needs
}

// partSep separates the parts of a rule's text. It is random, so no
// value a template prints can forge it.
var partSep = func() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "\x00" + hex.EncodeToString(b[:]) + "\x00"
}()

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render executes the text and splits it into its parts. An error names
// the part ("message", "suggestions[1]") and the line in it.
func (t *text) render(data map[string]any) ([]string, error) {
	if t.tmpl == nil {
		return t.static, nil
	}
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	if !t.fast || fastRender(t.tmpl.Root, t.consts, buf, data) != nil {
		buf.Reset()
		if err := t.tmpl.Execute(buf, data); err != nil {
			field, reason := t.locate(err)
			return nil, fmt.Errorf("%s: %s", field, reason)
		}
	}
	parts := strings.SplitN(buf.String(), partSep, t.parts)
	if len(parts) != t.parts { // the template's control flow cannot skip a separator; a bug if it did
		return nil, fmt.Errorf("message: rendered %d parts, not %d", len(parts), t.parts)
	}
	return parts, nil
}

var templateErr = regexp.MustCompile(`^template: [^:]*:(\d+)(?::(\d+))?: (?s:(.*))$`)

// locate finds the part a template error is in, and its line there.
func (t *text) locate(err error) (field, reason string) {
	m := templateErr.FindStringSubmatch(err.Error())
	if m == nil {
		return "message", strings.TrimPrefix(err.Error(), "template: ")
	}
	line, _ := strconv.Atoi(m[1])
	part := 0
	for i, start := range t.starts {
		if line >= start {
			part = i
		}
	}
	reason = "line " + strconv.Itoa(line-t.starts[part]+1)
	if m[2] != "" {
		reason += ":" + m[2]
	}
	return partName(part), reason + ": " + m[3]
}

func partName(part int) string {
	if part == 0 {
		return "message"
	}
	return "suggestions[" + strconv.Itoa(part-1) + "]"
}

// collapse trims s and turns every run of white space into one space,
// so that templates may be written across lines. It drops control
// characters and invalid UTF-8, and what text/template and fmt print for a
// missing value ("<no value>", "<nil>"), should a template print one past
// the str guard (with printf, say).
func collapse(s string) string {
	if strings.IndexByte(s, '<') >= 0 {
		for _, junk := range []string{"<no value>", "<nil>"} {
			s = strings.ReplaceAll(s, junk, "")
		}
	}
	if collapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c, n := s[i], 1
		drop, white := false, false
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			white = true
		case c < ' ' || c == 0x7f:
			drop = true
		case c >= utf8.RuneSelf:
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			white = unicode.IsSpace(r)
			drop = unicode.IsControl(r) || r == utf8.RuneError && n == 1
		}
		switch {
		case white:
			space = b.Len() > 0
		case !drop:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// collapsed reports whether s has no white space but single spaces
// between words.
func collapsed(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if s[i+1] == ' ' {
				return false
			}
		case c < ' ' || c == 0x7f:
			return false // a tab, a newline, a control character
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// text compiles a rule's message and suggestions into one template. It
// parses them one at a time first, so that an error names its part; then
// guards the output and tries the template on an empty report, so that a
// template that cannot work fails at load rather than on the first report.
func (c *compiler) text(parts []string, fail func(field, format string, args ...any)) *text {
	t := &text{parts: len(parts)}
	var src strings.Builder
	line := 1
	for i, p := range parts {
		if i > 0 {
			// The comment prints nothing and starts the part on a line of
			// its own, so that an error's line tells the part.
			src.WriteString(partSep + "{{/*\n*/}}")
			line++
		}
		t.starts = append(t.starts, line)
		line += strings.Count(p, "\n")
		src.WriteString(p)
		if _, err := newTemplate(src.String()); err != nil {
			field, reason := t.locate(err)
			fail(field, "%s", reason)
			return nil
		}
	}
	tmpl, _ := newTemplate(src.String())
	if len(tmpl.Templates()) == 1 && isStatic(tmpl.Root) {
		// Plain text (comments and trim markers aside): render it once.
		var out strings.Builder
		_ = tmpl.Execute(&out, nil)
		t.static = strings.SplitN(out.String(), partSep, t.parts)
		return t
	}
	t.tmpl, t.needs = tmpl, needsOf(tmpl)
	t.fast = len(tmpl.Templates()) == 1 && fastable(tmpl.Root)
	if t.fast {
		t.consts = stringConsts(tmpl.Root)
	}
	empty := newVars(&Input{Report: &triage.Report{}, Attempt: 1}, 1).templateData(needAll)
	if _, err := t.render(empty); err != nil {
		field, reason, _ := strings.Cut(err.Error(), ": ")
		fail(field, "fails on a report with an empty context: %s", reason)
		return nil
	}
	return t
}

// isStatic reports whether a template is plain text.
func isStatic(root *parse.ListNode) bool {
	for _, n := range root.Nodes {
		if n.Type() != parse.NodeText {
			return false
		}
	}
	return true
}

func newTemplate(src string) (*template.Template, error) {
	t, err := template.New("policy").Funcs(funcs).Option("missingkey=default").Parse(src)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			guardPrints(tt.Root)
		}
	}
	return t, nil
}

// guardPrints ends the pipeline of every printing action with str,
// as html/template adds its escapers, so that a missing key, nil, a map or
// a Go value prints as nothing, never as "<no value>" or "map[…]". A
// pipeline that ends in a function returning text needs no guard.
func guardPrints(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			guardPrints(c)
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 {
			return // an assignment prints nothing
		}
		if last := n.Pipe.Cmds[len(n.Pipe.Cmds)-1]; len(last.Args) > 0 {
			if id, ok := last.Args[0].(*parse.IdentifierNode); ok && printsText[id.Ident] {
				return
			}
		}
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{
			NodeType: parse.NodeCommand,
			Pos:      n.Pos,
			Args:     []parse.Node{parse.NewIdentifier("str").SetPos(n.Pos)},
		})
	case *parse.IfNode:
		guardPrints(n.List)
		guardPrints(n.ElseList)
	case *parse.RangeNode:
		guardPrints(n.List)
		guardPrints(n.ElseList)
	case *parse.WithNode:
		guardPrints(n.List)
		guardPrints(n.ElseList)
	}
}
