package policy

import (
	_ "embed"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"
	"unicode"
	"unicode/utf8"
)

// printsText are the functions whose result needs no str guard:
// they return a string (or a number) that is fit to print.
var printsText = map[string]bool{
	"str": true, "first": true, "pick": true, "default": true, "join": true, "choices": true, "quote": true, "human": true,
	"capitalize": true, "lower": true, "frequency": true, "duration": true, "altChart": true,
	"len": true, "print": true, "printf": true, "println": true, "html": true, "js": true, "urlquery": true,
}

// The template functions. Each takes any value an agent's context may
// hold (a string, a number, a list, a map, nothing) and never fails.
var funcs = template.FuncMap{
	"str":        str,
	"list":       list,
	"first":      first,
	"pick":       pick,
	"pickList":   pickList,
	"default":    defaultValue,
	"join":       join,
	"choices":    choicesOf,
	"take":       take,
	"quote":      quote,
	"human":      human,
	"capitalize": capitalize,
	"lower":      lower,
	"oneOf":      oneOf,
	"timeLike":   timeLike,
	"altChart":   altChart,
	"frequency":  frequency,
	"duration":   duration,
}

// str is v as text for a user: a list is joined with ", "; nil, a
// map, a struct or an error is nothing.
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return number(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case []string, []any:
		return strings.Join(itemsOf(x), ", ")
	case error:
		return "" // an error's text is internal
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprint(v)
	case reflect.Float32, reflect.Float64:
		return number(rv.Float())
	case reflect.Slice, reflect.Array:
		return strings.Join(itemsOf(v), ", ")
	}
	return ""
}

func number(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// itemsOf is v as a list of non-empty strings: a list's items, or a
// single value as a list of one.
func itemsOf(v any) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		add(x)
		return out
	case []string:
		for _, s := range x {
			add(s)
		}
		return out
	case []any:
		for _, e := range x {
			if !isList(e) {
				add(str(e))
			}
		}
		return out
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k == reflect.Slice || k == reflect.Array {
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes are not text
		}
		for i := range rv.Len() {
			if e := rv.Index(i).Interface(); !isList(e) {
				add(str(e))
			}
		}
		return out
	}
	add(str(v))
	return out
}

func isList(v any) bool {
	if v == nil {
		return false
	}
	k := reflect.TypeOf(v).Kind()
	return k == reflect.Slice || k == reflect.Array
}

// list returns the first of vs that is a non-empty list (a single
// value counts as a list of one): list .context.candidates .context.options.
func list(vs ...any) []string {
	for _, v := range vs {
		if items := itemsOf(v); len(items) > 0 {
			return items
		}
	}
	return []string{}
}

// first returns the first of vs that is not empty, as text.
func first(vs ...any) string {
	for _, v := range vs {
		if s := strings.TrimSpace(str(v)); s != "" {
			return s
		}
	}
	return ""
}

// pick returns the value in m of the first of keys, which are
// separated by "|", that is not empty, as text: pick .context
// "field|missing_field". (One string of keys, not several arguments: a
// template calls a function with fewer arguments faster.)
func pick(m any, keys string) string {
	c, _ := m.(map[string]any)
	for keys != "" {
		var k string
		k, keys, _ = strings.Cut(keys, "|")
		if s := strings.TrimSpace(str(c[k])); s != "" {
			return s
		}
	}
	return ""
}

// pickList returns the value in m of the first of keys, which are
// separated by "|", that is a non-empty list (a single value counts as a
// list of one).
func pickList(m any, keys string) []string {
	c, _ := m.(map[string]any)
	for keys != "" {
		var k string
		k, keys, _ = strings.Cut(keys, "|")
		if items := itemsOf(c[k]); len(items) > 0 {
			return items
		}
	}
	return []string{}
}

// defaultValue is sprig's default: {{.context.x | default "it"}}.
func defaultValue(def any, vs ...any) string {
	if s := first(vs...); s != "" {
		return s
	}
	return str(def)
}

func join(v any, sep string) string { return strings.Join(itemsOf(v), sep) }

// take returns at most n items of the list v.
func take(n int, v any) []string {
	items := itemsOf(v)
	return items[:max(0, min(n, len(items)))]
}

// choicesOf lists alternatives for a question: "a, b or c". When every
// item starts with the same words, the later items drop all but the last
// of them: "revenue by month, by product or by region".
func choicesOf(v any, conj string) string {
	var items []string
	for _, s := range itemsOf(v) {
		if !slices.ContainsFunc(items, func(o string) bool { return strings.EqualFold(o, s) }) {
			items = append(items, s)
		}
	}
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	// The words all items start with, each item keeping one of its own.
	prefix := items[0]
	for _, s := range items[1:] {
		n := 0
		for n < len(prefix) && n < len(s) && prefix[n] == s[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if i := strings.LastIndexByte(prefix, ' '); i >= 0 {
		prefix = prefix[:i+1] // whole words, and the space after them
	} else {
		prefix = ""
	}
	if strings.Count(strings.TrimSpace(prefix), " ") >= 1 { // two words or more
		// Keep the last shared word: "by product", not "product".
		cut := strings.LastIndexByte(strings.TrimRight(prefix, " "), ' ') + 1
		for i := 1; i < len(items); i++ {
			items[i] = items[i][cut:]
		}
	}
	var b strings.Builder
	for i, s := range items {
		switch {
		case i == len(items)-1:
			b.WriteString(" " + conj + " ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// quote puts v in typographic quotes, or returns nothing for nothing.
func quote(v any) string {
	s := strings.Trim(str(v), " \t\"'“”‘’")
	if s == "" {
		return ""
	}
	return "“" + s + "”"
}

// human makes an identifier readable: "date_range" → "date range".
func human(v any) string {
	return strings.Join(strings.FieldsFunc(str(v), func(r rune) bool { return r == '_' || unicode.IsSpace(r) }), " ")
}

func lower(v any) string { return strings.ToLower(str(v)) }

func capitalize(v any) string {
	s := str(v)
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// oneOf reports whether v is one of opts, ignoring case.
func oneOf(v any, opts ...string) bool {
	s := strings.TrimSpace(str(v))
	return s != "" && slices.ContainsFunc(opts, func(o string) bool { return strings.EqualFold(o, s) })
}

var timeWords = []string{"date", "time", "hour", "day", "week", "month", "quarter", "year"}

// timeLike reports whether any of vs names a time dimension or grain
// ("date", "order_month", "weekly").
func timeLike(vs ...any) bool {
	for _, v := range vs {
		s := strings.ToLower(str(v))
		for _, w := range timeWords {
			if strings.Contains(s, w) {
				return true
			}
		}
	}
	return false
}

// altChart is the chart to offer instead of chart: for a time
// dimension line, area or bar; otherwise bar, pie or table; the first that
// is not chart.
func altChart(chart any, timeDimension bool) string {
	alts := []string{"bar", "pie", "table"}
	if timeDimension {
		alts = []string{"line", "area", "bar"}
	}
	c := strings.ToLower(strings.TrimSpace(str(chart)))
	for _, a := range alts {
		if a != c {
			return a
		}
	}
	return alts[0]
}

// frequency is the adjective of a time grain: "month" → "monthly".
func frequency(v any) string {
	switch strings.ToLower(strings.TrimSpace(str(v))) {
	case "hour", "hourly":
		return "hourly"
	case "day", "daily", "date":
		return "daily"
	case "week", "weekly":
		return "weekly"
	case "month", "monthly":
		return "monthly"
	case "quarter", "quarterly":
		return "quarterly"
	case "year", "yearly", "annual":
		return "yearly"
	}
	return ""
}

// duration says a number of seconds (or a time.Duration) in words,
// rounded up: 45 → "45 seconds", 90 → "2 minutes".
func duration(v any) string {
	var secs float64
	switch x := v.(type) {
	case time.Duration:
		secs = x.Seconds()
	default:
		f, err := strconv.ParseFloat(str(v), 64)
		if err != nil {
			return ""
		}
		secs = f
	}
	if !(secs > 0) || math.IsInf(secs, 0) {
		return ""
	}
	unit := func(n float64, name string) string {
		k := int64(math.Min(math.Ceil(n), 1e9))
		if k == 1 {
			return "1 " + name
		}
		return strconv.FormatInt(k, 10) + " " + name + "s"
	}
	switch {
	case secs < 60:
		return unit(secs, "second")
	case secs < 3600:
		return unit(secs/60, "minute")
	case secs < 2*86400:
		return unit(secs/3600, "hour")
	}
	return unit(secs/86400, "day")
}
