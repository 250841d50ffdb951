package agui

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
)

// inputCase is a request body and RunAgentInputSchema's verdict on it. The
// client conformance test checks each verdict against the real schema;
// TestParseRunAgentInputCases checks ParseRunAgentInput against each.
type inputCase struct {
	name     string
	input    string
	schemaOK bool   // RunAgentInputSchema.safeParse accepts it
	bound    bool   // accepted by the schema, refused by a bound of ours
	field    string // the member ParseRunAgentInput reports, when it refuses
}

// in builds a body from the minimal valid one, with members replaced or
// added (a JSON object's members, without braces).
func in(members string) string {
	base := `"threadId":"t","runId":"r","messages":[]`
	if members == "" {
		return "{" + base + "}"
	}
	return "{" + base + "," + members + "}"
}

// msg builds a body whose only message is the given object.
func msg(m string) string { return `{"threadId":"t","runId":"r","messages":[` + m + `]}` }

func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func repeatItems(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

var inputCases = []inputCase{
	{name: "Minimal", input: in(""), schemaOK: true},
	{name: "StateNullIsAbsent", input: in(`"state":null`), schemaOK: true},
	{name: "StateAnyValue", input: in(`"state":[1,"a",false]`), schemaOK: true},
	{name: "ForwardedPropsFalse", input: in(`"forwardedProps":false`), schemaOK: true},
	{name: "UnknownMembersIgnored", input: `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"c","extra":1}],"extra":{}}`, schemaOK: true},
	{name: "AssistantWithoutContent", input: msg(`{"id":"m","role":"assistant"}`), schemaOK: true},
	{name: "UserPartsEmpty", input: msg(`{"id":"m","role":"user","content":[]}`), schemaOK: true},
	{name: "ToolNameIgnored", input: msg(`{"id":"m","role":"tool","content":"c","toolCallId":"c1","name":7}`), schemaOK: true},
	{name: "ActivityMessage", input: msg(`{"id":"m","role":"activity","activityType":"a","content":{}}`), schemaOK: true},
	{name: "MetadataNullValueInside", input: msg(`{"id":"m","role":"system","content":"c","metadata":{"k":null}}`), schemaOK: true},
	{name: "PartMetadataAnyValue", input: msg(`{"id":"m","role":"user","content":[{"type":"text","text":"t","metadata":0}]}`), schemaOK: true},
	{name: "ResumeEmpty", input: in(`"resume":[],"protocolVersion":"1.0","parentRunId":"p"`), schemaOK: true},
	{name: "EmptyStrings", input: `{"threadId":"","runId":"","messages":[{"id":"","role":"system","content":""}]}`, schemaOK: true},

	{name: "NotAnObject", input: `[]`, field: "(root)"},
	{name: "Null", input: `null`, field: "(root)"},
	{name: "MissingThreadID", input: `{"runId":"r","messages":[]}`, field: "threadId"},
	{name: "ThreadIDNumber", input: `{"threadId":1,"runId":"r","messages":[]}`, field: "threadId"},
	{name: "RunIDNull", input: `{"threadId":"t","runId":null,"messages":[]}`, field: "runId"},
	{name: "MessagesMissing", input: `{"threadId":"t","runId":"r"}`, field: "messages"},
	{name: "MessagesObject", input: `{"threadId":"t","runId":"r","messages":{}}`, field: "messages"},
	{name: "MessageNotObject", input: msg(`"hi"`), field: "messages[0]"},
	{name: "MessageRoleMissing", input: msg(`{"id":"m","content":"c"}`), field: "messages[0].role"},
	{name: "MessageRoleUnknown", input: msg(`{"id":"m","role":"bot","content":"c"}`), field: "messages[0].role"},
	{name: "MessageIDMissing", input: msg(`{"role":"user","content":"c"}`), field: "messages[0].id"},
	{name: "UserContentMissing", input: msg(`{"id":"m","role":"user"}`), field: "messages[0].content"},
	{name: "UserContentNumber", input: msg(`{"id":"m","role":"user","content":1}`), field: "messages[0].content"},
	{name: "SystemContentParts", input: msg(`{"id":"m","role":"system","content":[]}`), field: "messages[0].content"},
	{name: "AssistantContentNull", input: msg(`{"id":"m","role":"assistant","content":null}`), field: "messages[0].content"},
	{name: "ToolCallTypeUnknown", input: msg(`{"id":"m","role":"assistant","toolCalls":[{"id":"c","type":"tool","function":{"name":"n","arguments":""}}]}`), field: "messages[0].toolCalls[0].type"},
	{name: "ToolCallFunctionMissing", input: msg(`{"id":"m","role":"assistant","toolCalls":[{"id":"c","type":"function"}]}`), field: "messages[0].toolCalls[0].function"},
	{name: "ToolCallArgumentsObject", input: msg(`{"id":"m","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"n","arguments":{}}}]}`), field: "messages[0].toolCalls[0].function.arguments"},
	{name: "ToolMessageWithoutToolCallID", input: msg(`{"id":"m","role":"tool","content":"c"}`), field: "messages[0].toolCallId"},
	{name: "ToolErrorNull", input: msg(`{"id":"m","role":"tool","content":"c","toolCallId":"c1","error":null}`), field: "messages[0].error"},
	{name: "ActivityContentArray", input: msg(`{"id":"m","role":"activity","activityType":"a","content":[]}`), field: "messages[0].content"},
	{name: "ActivityTypeMissing", input: msg(`{"id":"m","role":"activity","content":{}}`), field: "messages[0].activityType"},
	{name: "ReasoningContentMissing", input: msg(`{"id":"m","role":"reasoning"}`), field: "messages[0].content"},
	{name: "MessageMetadataNull", input: msg(`{"id":"m","role":"user","content":"c","metadata":null}`), field: "messages[0].metadata"},
	{name: "MessageMetadataArray", input: msg(`{"id":"m","role":"user","content":"c","metadata":[]}`), field: "messages[0].metadata"},
	{name: "MessageSubagentNull", input: msg(`{"id":"m","role":"user","content":"c","subagentRunId":null}`), field: "messages[0].subagentRunId"},
	{name: "MessageNameNumber", input: msg(`{"id":"m","role":"developer","content":"c","name":1}`), field: "messages[0].name"},
	{name: "EncryptedValueNumber", input: msg(`{"id":"m","role":"reasoning","content":"c","encryptedValue":1}`), field: "messages[0].encryptedValue"},
	{name: "PartTypeUnknown", input: msg(`{"id":"m","role":"user","content":[{"type":"file"}]}`), field: "messages[0].content[0].type"},
	{name: "TextPartWithoutText", input: msg(`{"id":"m","role":"user","content":[{"type":"text"}]}`), field: "messages[0].content[0].text"},
	{name: "ImagePartWithoutSource", input: msg(`{"id":"m","role":"user","content":[{"type":"image"}]}`), field: "messages[0].content[0].source"},
	{name: "DataSourceWithoutMimeType", input: msg(`{"id":"m","role":"tool","toolCallId":"c","content":[{"type":"audio","source":{"type":"data","value":"x"}}]}`), field: "messages[0].content[0].source.mimeType"},
	{name: "SourceTypeUnknown", input: msg(`{"id":"m","role":"user","content":[{"type":"video","source":{"type":"blob","value":"x"}}]}`), field: "messages[0].content[0].source.type"},
	{name: "PartMetadataNull", input: msg(`{"id":"m","role":"user","content":[{"type":"text","text":"t","metadata":null}]}`), field: "messages[0].content[0].metadata"},
	{name: "ToolsNull", input: in(`"tools":null`), field: "tools"},
	{name: "ToolWithoutDescription", input: in(`"tools":[{"name":"n"}]`), field: "tools[0].description"},
	{name: "ToolParametersNull", input: in(`"tools":[{"name":"n","description":"d","parameters":null}]`), field: "tools[0].parameters"},
	{name: "ContextValueNumber", input: in(`"context":[{"description":"d","value":1}]`), field: "context[0].value"},
	{name: "ForwardedPropsNull", input: in(`"forwardedProps":null`), field: "forwardedProps"},
	{name: "ParentRunIDNull", input: in(`"parentRunId":null`), field: "parentRunId"},
	{name: "ResumeStatusUnknown", input: in(`"resume":[{"interruptId":"i","status":"done"}]`), field: "resume[0].status"},
	{name: "ResumePayloadNull", input: in(`"resume":[{"interruptId":"i","status":"resolved","payload":null}]`), field: "resume[0].payload"},

	{name: "TooManyMessages", input: msg(repeatItems(`{"id":"m","role":"user","content":"c"}`, MaxInputMessages+1)), schemaOK: true, bound: true, field: "messages"},
	{name: "TooManyTools", input: in(`"tools":[` + repeatItems(`{"name":"n","description":"d"}`, MaxInputItems+1) + `]`), schemaOK: true, bound: true, field: "tools"},
	{name: "TooManyParts", input: msg(`{"id":"m","role":"user","content":[` + repeatItems(`{"type":"text","text":"t"}`, MaxInputItems+1) + `]}`), schemaOK: true, bound: true, field: "messages[0].content"},
	{name: "ThreadIDTooLong", input: `{"threadId":"` + strings.Repeat("t", MaxInputIDBytes+1) + `","runId":"r","messages":[]}`, schemaOK: true, bound: true, field: "threadId"},
	{name: "MessageIDTooLong", input: msg(`{"id":"` + strings.Repeat("é", MaxInputIDBytes/2+1) + `","role":"user","content":"c"}`), schemaOK: true, bound: true, field: "messages[0].id"},
	{name: "StateTooDeep", input: in(`"state":` + nested(MaxInputDepth+1)), schemaOK: true, bound: true, field: "state"},
	{name: "ForwardedPropsTooDeep", input: in(`"forwardedProps":{"a":` + nested(MaxInputDepth) + `}`), schemaOK: true, bound: true, field: "forwardedProps"},
}

func TestParseRunAgentInputCases(t *testing.T) {
	t.Parallel()
	for _, c := range inputCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRunAgentInput([]byte(c.input))
			if c.schemaOK && !c.bound {
				if err != nil {
					t.Fatalf("refused what the schema accepts: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidInput) || got != nil {
				t.Fatalf("ParseRunAgentInput = %v, %v; want a *ValidationError", got, err)
			}
			if ve.Fields[0].Field != c.field {
				t.Errorf("first invalid member %q (%s), want %q", ve.Fields[0].Field, ve.Fields[0].Message, c.field)
			}
		})
	}
	// At the bounds, the bounds hold.
	for _, body := range []string{
		msg(repeatItems(`{"id":"m","role":"user","content":"c"}`, MaxInputMessages)),
		`{"threadId":"` + strings.Repeat("t", MaxInputIDBytes) + `","runId":"r","messages":[]}`,
		in(`"state":` + nested(MaxInputDepth)),
	} {
		if _, err := ParseRunAgentInput([]byte(body)); err != nil {
			t.Errorf("refused a body at the bounds: %v", err)
		}
	}
}

func TestParseRunAgentInput(t *testing.T) {
	t.Parallel()
	body := `{"threadId":"t1","runId":"r1","protocolVersion":"1.0","parentRunId":"r0","state":{"n":1},
	"messages":[
	  {"id":"s","role":"system","content":"Be brief."},
	  {"id":"u1","role":"user","content":"first"},
	  {"id":"a1","role":"assistant","toolCalls":[{"id":"c1","type":"function","function":{"name":"search","arguments":"{}"}}]},
	  {"id":"t1","role":"tool","content":[{"type":"text","text":"done"}],"toolCallId":"c1","error":"partial"},
	  {"id":"u2","role":"user","name":"ana","content":[{"type":"text","text":"look "},{"type":"image","source":{"type":"url","value":"https://x/a.png"}},{"type":"text","text":"here"}]}
	],
	"tools":[{"name":"confirm","description":"Ask.","parameters":{"type":"object"}}],
	"context":[{"description":"locale","value":"en"}],
	"forwardedProps":{"k":[1]},
	"resume":[{"interruptId":"i1","status":"resolved","payload":true}]}`
	got, err := ParseRunAgentInput([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := &RunAgentInput{
		ThreadID: "t1", RunID: "r1", ProtocolVersion: "1.0", ParentRunID: "r0",
		State: map[string]any{"n": json.Number("1")},
		Messages: []Message{
			{ID: "s", Role: RoleSystem, Content: "Be brief."},
			{ID: "u1", Role: RoleUser, Content: "first"},
			{ID: "a1", Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Function: FunctionCall{Name: "search", Arguments: "{}"}}}},
			{ID: "t1", Role: RoleTool, Parts: []ContentPart{{Type: PartText, Text: "done"}}, ToolCallID: "c1", Error: "partial"},
			{ID: "u2", Role: RoleUser, Name: "ana", Parts: []ContentPart{{Type: PartText, Text: "look "},
				{Type: PartImage, Source: &PartSource{Type: SourceURL, Value: "https://x/a.png"}}, {Type: PartText, Text: "here"}}},
		},
		Tools:          []Tool{{Name: "confirm", Description: "Ask.", Parameters: map[string]any{"type": "object"}}},
		Context:        []Context{{Description: "locale", Value: "en"}},
		ForwardedProps: map[string]any{"k": []any{json.Number("1")}},
		Resume:         []ResumeEntry{{InterruptID: "i1", Status: ResumeResolved, Payload: true}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseRunAgentInput\n got %#v\nwant %#v", got, want)
	}
	if s := got.LastUserText(); s != "look here" {
		t.Errorf("LastUserText = %q", s)
	}
	if s := got.Messages[3].Text(); s != "done" {
		t.Errorf("tool message Text = %q", s)
	}
	// Defaults: tools and context are empty, not nil; no user message, no
	// text.
	minimal, err := ParseRunAgentInput([]byte(in("")))
	if err != nil || minimal.Tools == nil || minimal.Context == nil || minimal.Messages == nil || minimal.LastUserText() != "" {
		t.Errorf("minimal input = %#v, %v", minimal, err)
	}
}

func TestParseRunAgentInputRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		fields     []string
		msg        string
	}{
		{"InvalidUTF8", "{\"threadId\":\"t\xff\",\"runId\":\"r\",\"messages\":[]}", []string{"(root)"}, "is not valid UTF-8"},
		{"NotJSON", `{"threadId":`, []string{"(root)"}, "is not valid JSON"},
		{"Empty", ``, []string{"(root)"}, "is not valid JSON"},
		{"TrailingData", in("") + ` {}`, []string{"(root)"}, "is not valid JSON"},
		{
			"EveryInvalidMember",
			`{"runId":1,"messages":[{"id":"m","role":"user"},{"id":2,"role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"n"}}]}],"tools":[{}],"forwardedProps":null}`,
			[]string{"threadId", "runId", "messages[0].content", "messages[1].id", "messages[1].toolCalls[0].function.arguments",
				"forwardedProps", "tools[0].name", "tools[0].description"},
			`agui: invalid RunAgentInput: member "threadId" is required; member "runId" must be a string, not a number; member "messages[0].content" is required (and 5 more)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseRunAgentInput([]byte(tt.body))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v", err)
			}
			var fields []string
			for _, f := range ve.Fields {
				fields = append(fields, f.Field)
			}
			if !reflect.DeepEqual(fields, tt.fields) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("fields %q, error %q; want %q, containing %q", fields, err, tt.fields, tt.msg)
			}
		})
	}
}

// TestParseRunAgentInputLoneSurrogate: JSON.stringify escapes a lone
// surrogate, which is valid JSON but no Unicode text: it reads as U+FFFD.
func TestParseRunAgentInputLoneSurrogate(t *testing.T) {
	t.Parallel()
	got, err := ParseRunAgentInput([]byte(msg(`{"id":"m","role":"user","content":"a\ud83d"}`)))
	if err != nil || got.LastUserText() != "a\uFFFD" {
		t.Errorf("got %#v, %v", got, err)
	}
}

// TestValidationErrorFault: a server returns the error as it is, and
// fault.From makes it an INVALID_REQUEST listing every invalid member; the
// list is capped.
func TestValidationErrorFault(t *testing.T) {
	t.Parallel()
	body := msg(repeatItems(`{"id":1,"role":"user","content":"c"}`, 150))
	_, err := ParseRunAgentInput([]byte(body))
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) != 100 || ve.Omitted != 50 {
		t.Fatalf("err = %v", err)
	}
	f := fault.From(err)
	if f.Code != fault.InvalidRequest || len(f.FieldErrors) != 101 {
		t.Fatalf("fault = %s with %d field errors", f.Code, len(f.FieldErrors))
	}
	if got := f.FieldErrors[0]; got != (fault.FieldError{Field: "messages[0].id", Message: "must be a string, not a number"}) {
		t.Errorf("first field error %+v", got)
	}
	if got := f.FieldErrors[100]; got.Field != "(root)" || !strings.Contains(got.Message, "50 more") {
		t.Errorf("last field error %+v", got)
	}
	if !strings.HasSuffix(err.Error(), "(and 147 more)") {
		t.Errorf("Error() = %s", err)
	}
}

// TestRunAgentInputRoundTrip: an input encodes to JSON that reads back as
// the same input, and members a role does not have are refused, not
// dropped.
func TestRunAgentInputRoundTrip(t *testing.T) {
	t.Parallel()
	in1, err := ParseRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"a","role":"activity","activityType":"x","content":{"k":1}},{"id":"t","role":"tool","content":"","toolCallId":""}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(in1)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"threadId":"t","runId":"r","messages":[{"id":"a","role":"activity","content":{"k":1},"activityType":"x"},{"id":"t","role":"tool","content":"","toolCallId":""}],"tools":[],"context":[]}`
	if string(b) != want {
		t.Errorf("encoded\n got %s\nwant %s", b, want)
	}
	for _, m := range []Message{
		{ID: "m", Role: RoleUser, ToolCalls: []ToolCall{}},
		{ID: "m", Role: RoleSystem, Parts: []ContentPart{}},
		{ID: "m", Role: RoleTool, Name: "n"},
		{ID: "m", Role: RoleActivity, Content: "c"},
		{ID: "m", Role: "bot"},
		{ID: "m", Role: RoleUser, Content: "c", Parts: []ContentPart{}},
		{ID: "m", Role: RoleUser, Parts: []ContentPart{{Type: PartImage}}},
		{ID: "m", Role: RoleUser, Parts: []ContentPart{{Type: PartText, Source: &PartSource{Type: SourceURL}}}},
		{ID: "m", Role: RoleUser, Parts: []ContentPart{{Type: PartAudio, Text: "t", Source: &PartSource{Type: SourceURL}}}},
		{ID: "m", Role: RoleUser, Parts: []ContentPart{{Type: PartAudio, Source: &PartSource{Type: "blob"}}}},
		{ID: "m", Role: RoleUser, Parts: []ContentPart{{Type: PartAudio, Source: &PartSource{Type: SourceURL, Provider: "p"}}}},
		{ID: "m", Role: RoleUser, Parts: []ContentPart{{Type: PartText, Metadata: map[string]any(nil)}}},
	} {
		if b, err := json.Marshal(m); err == nil {
			t.Errorf("json.Marshal(%+v) = %s, want an error", m, b)
		}
	}
}
