package agui

import (
	"errors"
	"fmt"
	"strings"
)

// RunAgentInput is the request that starts a run: the JSON body the
// official client's HttpAgent POSTs to an agent's URL, and what RUN_STARTED
// may echo in its input member. Its members are those of @ag-ui/core
// 1.0.0's RunAgentInputSchema; ParseRunAgentInput reads and checks one.
type RunAgentInput struct {
	ThreadID string `json:"threadId"`
	RunID    string `json:"runId"`
	// ProtocolVersion is the version the client speaks ("1.0"); empty
	// omits it.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// ParentRunID names the run this one continues or branches from;
	// empty omits it.
	ParentRunID string `json:"parentRunId,omitempty"`
	// State is the client's copy of the agent state: any JSON value. Nil
	// omits it (a JSON null reads as absent, as the schema reads it).
	State any `json:"state,omitempty"`
	// Messages is the conversation so far, oldest first.
	Messages []Message `json:"messages"`
	// Tools are the tools the client offers the agent (frontend tools).
	Tools []Tool `json:"tools"`
	// Context is ambient information for the run, apart from the
	// conversation.
	Context []Context `json:"context"`
	// ForwardedProps are the application's own properties, passed
	// through: any JSON value but null. Nil omits them.
	ForwardedProps any `json:"forwardedProps,omitempty"`
	// Resume answers the interrupts of the run this one continues; nil
	// omits it.
	Resume []ResumeEntry `json:"resume,omitzero"`
}

// MarshalJSON encodes the input with messages, tools and context always
// present (an empty array when nil), as the official client sends them.
func (in RunAgentInput) MarshalJSON() ([]byte, error) {
	type plain RunAgentInput
	p := plain(in)
	if p.Messages == nil {
		p.Messages = []Message{}
	}
	if p.Tools == nil {
		p.Tools = []Tool{}
	}
	if p.Context == nil {
		p.Context = []Context{}
	}
	return marshal(p)
}

// LastUserText returns the text of the last user message (see
// Message.Text), or "" when there is none.
func (in *RunAgentInput) LastUserText() string {
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == RoleUser {
			return in.Messages[i].Text()
		}
	}
	return ""
}

// Message is one message of a conversation: a member of RunAgentInput's
// messages and of MESSAGES_SNAPSHOT. Its Role says which members it has, as
// @ag-ui/core 1.0.0's MessageSchema (a union discriminated by role)
// defines them:
//
//	developer, system: Content, Name
//	assistant:         Content (optional), ToolCalls, Name
//	user:              Content or Parts, Name
//	tool:              Content or Parts, ToolCallID, Error
//	activity:          ActivityType, ActivityContent
//	reasoning:         Content
//
// and every role but activity may carry EncryptedValue. A member set on a
// role that does not have it is an error when the message is encoded, never
// silently dropped. Empty strings and nil values omit optional members.
type Message struct {
	ID   string
	Role Role
	// Content is the message's text; for a user or tool message it is
	// used when Parts is nil.
	Content string
	// Parts is the content of a user or tool message given as content
	// parts (text, image, audio, video, document); nil means Content.
	Parts []ContentPart
	// Name names the author (developer, system, assistant, user).
	Name string
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall
	// ToolCallID is the call a tool message answers; Error says why the
	// tool failed, if it did.
	ToolCallID string
	Error      string
	// ActivityType and ActivityContent (an object; nil is sent as {}) make
	// up an activity message.
	ActivityType    string
	ActivityContent map[string]any
	// EncryptedValue is a provider's opaque artefact, returned as given.
	EncryptedValue string
	// SubagentRunID attributes the message to a subagent invocation.
	SubagentRunID string
	// Metadata is open by key, as an event's is; nil omits it.
	Metadata map[string]any
}

// Text returns the message's text: Content, or when it was given as parts,
// the text parts concatenated in order with every other part dropped (what
// @ag-ui/core's contentToText does).
func (m *Message) Text() string {
	if m.Parts == nil {
		return m.Content
	}
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// wireMessage is a Message as JSON: members in a fixed order, each present
// only for the roles that have it.
type wireMessage struct {
	ID             string         `json:"id"`
	Role           Role           `json:"role"`
	Name           string         `json:"name,omitempty"`
	Content        any            `json:"content,omitempty"`
	ToolCalls      []ToolCall     `json:"toolCalls,omitzero"`
	ToolCallID     *string        `json:"toolCallId,omitempty"`
	Error          string         `json:"error,omitempty"`
	ActivityType   *string        `json:"activityType,omitempty"`
	EncryptedValue string         `json:"encryptedValue,omitempty"`
	SubagentRunID  string         `json:"subagentRunId,omitempty"`
	Metadata       map[string]any `json:"metadata,omitzero"`
}

// MarshalJSON encodes the message with the members of its role. It fails
// for an unknown role, a member the role does not have, or an invalid
// content part.
func (m Message) MarshalJSON() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	w := wireMessage{ID: m.ID, Role: m.Role, Name: m.Name, EncryptedValue: m.EncryptedValue,
		SubagentRunID: m.SubagentRunID, Metadata: m.Metadata}
	switch m.Role {
	case RoleDeveloper, RoleSystem, RoleReasoning:
		w.Content = m.Content
	case RoleAssistant:
		if m.Content != "" {
			w.Content = m.Content
		}
		w.ToolCalls = m.ToolCalls
	case RoleUser:
		w.Content = partsOrText(m.Parts, m.Content)
	case RoleTool:
		w.Content = partsOrText(m.Parts, m.Content)
		w.ToolCallID, w.Error = &m.ToolCallID, m.Error
	case RoleActivity:
		w.ActivityType, w.Content = &m.ActivityType, m.ActivityContent
		if m.ActivityContent == nil {
			w.Content = map[string]any{}
		}
	}
	return marshal(w)
}

func partsOrText(parts []ContentPart, text string) any {
	if parts != nil {
		return parts
	}
	return text
}

// check reports what the message's role does not allow.
func (m *Message) check() error {
	if !m.Role.messageRole() {
		return fmt.Errorf("role %q is not developer, system, assistant, user, tool, activity or reasoning", m.Role)
	}
	has := map[string]bool{
		"content":         m.Content != "",
		"parts":           m.Parts != nil,
		"name":            m.Name != "",
		"toolCalls":       m.ToolCalls != nil,
		"toolCallId":      m.ToolCallID != "",
		"error":           m.Error != "",
		"activityType":    m.ActivityType != "",
		"activityContent": m.ActivityContent != nil,
		"encryptedValue":  m.EncryptedValue != "",
	}
	allowed := map[Role]string{
		RoleDeveloper: "content name encryptedValue",
		RoleSystem:    "content name encryptedValue",
		RoleAssistant: "content name toolCalls encryptedValue",
		RoleUser:      "content parts name encryptedValue",
		RoleTool:      "content parts toolCallId error encryptedValue",
		RoleActivity:  "activityType activityContent",
		RoleReasoning: "content encryptedValue",
	}[m.Role]
	for _, member := range []string{"content", "parts", "name", "toolCalls", "toolCallId", "error", "activityType", "activityContent", "encryptedValue"} {
		if has[member] && !strings.Contains(" "+allowed+" ", " "+member+" ") {
			return fmt.Errorf("%s %s message has no %s", article(string(m.Role)), m.Role, member)
		}
	}
	if m.Parts != nil && m.Content != "" {
		return errors.New("content and parts are exclusive")
	}
	for i := range m.Parts {
		if err := m.Parts[i].check(); err != nil {
			return fmt.Errorf("parts[%d]: %w", i, err)
		}
	}
	return nil
}

// ToolCall is a call an assistant message made: the function's name and its
// arguments as a JSON text. It is encoded with type "function", the only
// type AG-UI 1.0 has.
type ToolCall struct {
	ID       string
	Function FunctionCall
	// EncryptedValue is a provider's opaque artefact; empty omits it.
	EncryptedValue string
	// Metadata is open by key; nil omits it.
	Metadata map[string]any
}

// FunctionCall is the name and arguments of a tool call.
type FunctionCall struct {
	Name string `json:"name"`
	// Arguments is a JSON text, as the model produced it; it is not
	// parsed.
	Arguments string `json:"arguments"`
}

// MarshalJSON encodes the call with its type member.
func (c ToolCall) MarshalJSON() ([]byte, error) {
	return marshal(struct {
		ID             string         `json:"id"`
		Type           string         `json:"type"`
		Function       FunctionCall   `json:"function"`
		EncryptedValue string         `json:"encryptedValue,omitempty"`
		Metadata       map[string]any `json:"metadata,omitzero"`
	}{c.ID, "function", c.Function, c.EncryptedValue, c.Metadata})
}

// PartType is the kind of a content part.
type PartType string

// The content parts of AG-UI 1.0.
const (
	PartText     PartType = "text"
	PartImage    PartType = "image"
	PartAudio    PartType = "audio"
	PartVideo    PartType = "video"
	PartDocument PartType = "document"
)

// ContentPart is one part of a user or tool message's content (and of
// TOOL_CALL_RESULT's): text, or media whose bytes Source locates.
type ContentPart struct {
	Type PartType
	// ID names the part; empty omits it.
	ID string
	// Text is a text part's text (text parts only).
	Text string
	// Source says where a media part's bytes are (media parts only,
	// required).
	Source *PartSource
	// Metadata is any JSON value but null; nil omits it.
	Metadata any
}

// SourceType says where a media part's bytes come from.
type SourceType string

// The sources of a media part.
const (
	// SourceData: the bytes inline, base64 in Value; MimeType is sent
	// always.
	SourceData SourceType = "data"
	// SourceURL: the bytes at the URL in Value.
	SourceURL SourceType = "url"
	// SourceFile: a handle the provider issued (Value), optionally naming
	// the provider.
	SourceFile SourceType = "file"
)

// PartSource locates a media part's bytes.
type PartSource struct {
	Type  SourceType
	Value string
	// MimeType is required for data (sent even when empty), optional
	// otherwise.
	MimeType string
	// Provider names the provider that issued a file handle (file only).
	Provider string
}

// MarshalJSON encodes the part with the members of its type.
func (p ContentPart) MarshalJSON() ([]byte, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	w := struct {
		Type     PartType    `json:"type"`
		ID       string      `json:"id,omitempty"`
		Text     *string     `json:"text,omitempty"`
		Source   *PartSource `json:"source,omitempty"`
		Metadata any         `json:"metadata,omitempty"`
	}{Type: p.Type, ID: p.ID, Source: p.Source, Metadata: p.Metadata}
	if p.Type == PartText {
		w.Text = &p.Text
	}
	return marshal(w)
}

// MarshalJSON encodes the source with the members of its type.
func (s PartSource) MarshalJSON() ([]byte, error) {
	w := struct {
		Type     SourceType `json:"type"`
		Value    string     `json:"value"`
		MimeType *string    `json:"mimeType,omitempty"`
		Provider string     `json:"provider,omitempty"`
	}{Type: s.Type, Value: s.Value, Provider: s.Provider}
	if s.MimeType != "" || s.Type == SourceData {
		w.MimeType = &s.MimeType
	}
	return marshal(w)
}

func (p *ContentPart) check() error {
	if p.Metadata != nil && encodesNull(p.Metadata) {
		return errors.New("metadata must not be null")
	}
	switch p.Type {
	case PartText:
		if p.Source != nil {
			return errors.New("a text part has no source")
		}
		return nil
	case PartImage, PartAudio, PartVideo, PartDocument:
	default:
		return fmt.Errorf("type %q is not text, image, audio, video or document", p.Type)
	}
	if p.Text != "" {
		return fmt.Errorf("%s %s part has no text", article(string(p.Type)), p.Type)
	}
	if p.Source == nil {
		return fmt.Errorf("%s %s part needs a source", article(string(p.Type)), p.Type)
	}
	switch p.Source.Type {
	case SourceData, SourceURL:
		if p.Source.Provider != "" {
			return fmt.Errorf("%s %s source has no provider", article(string(p.Source.Type)), p.Source.Type)
		}
	case SourceFile:
	default:
		return fmt.Errorf("source type %q is not data, url or file", p.Source.Type)
	}
	return nil
}

// Tool is a tool the client offers the agent.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is the JSON Schema of the tool's arguments: any JSON
	// value but null. Nil omits it.
	Parameters any `json:"parameters,omitempty"`
	// Metadata is open by key; nil omits it.
	Metadata map[string]any `json:"metadata,omitzero"`
}

// Context is a named piece of ambient information for the run.
type Context struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// ResumeStatus is how a resume entry answers an interrupt.
type ResumeStatus string

// The statuses of a resume entry.
const (
	ResumeResolved  ResumeStatus = "resolved"
	ResumeCancelled ResumeStatus = "cancelled"
)

// ResumeEntry answers one interrupt of the run this one continues.
type ResumeEntry struct {
	InterruptID string       `json:"interruptId"`
	Status      ResumeStatus `json:"status"`
	// Payload is the answer: any JSON value but null. Nil omits it.
	Payload any `json:"payload,omitempty"`
	// Metadata is open by key; nil omits it.
	Metadata map[string]any `json:"metadata,omitzero"`
}

// article is the indefinite article before word in a message.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeio", rune(word[0])) { // "a user", "a url"
		return "an"
	}
	return "a"
}

// messageRole reports whether r is a role MessageSchema knows.
func (r Role) messageRole() bool {
	switch r {
	case RoleDeveloper, RoleSystem, RoleAssistant, RoleUser, RoleTool, RoleActivity, RoleReasoning:
		return true
	}
	return false
}
