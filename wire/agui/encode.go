package agui

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// AppendMarshal appends Marshal(e)'s JSON to b, with the same checks and
// errors: a stream's writer encodes each event into one buffer it reuses.
// The events a run streams most (text messages, steps, tool calls, a run's
// start and finish without input, result or outcome), when they carry no
// RawEvent or Metadata, are encoded without reflection, byte for byte as
// encoding/json encodes them (encode_test.go holds it to that); the rest
// go through encoding/json.
func AppendMarshal(b []byte, e Event) ([]byte, error) {
	if isNil(e) {
		return b, fmt.Errorf("%w: nil event", ErrInvalidEvent)
	}
	if err := e.validate(); err != nil {
		return b, fmt.Errorf("%w: %s: %w", ErrInvalidEvent, e.Type(), err)
	}
	if out, ok := appendFast(b, e); ok {
		return out, nil
	}
	data, err := marshal(e)
	if err != nil {
		return b, fmt.Errorf("agui: encode %s: %w", e.Type(), err)
	}
	return append(b, data...), nil
}

// appendFast appends e's JSON when it is of a kind encoded without
// reflection; ok is false, and b unchanged, when it is not.
func appendFast(b []byte, e Event) (_ []byte, ok bool) {
	base := e.Base()
	if base.RawEvent != nil || base.Metadata != nil {
		return b, false
	}
	switch e := e.(type) {
	case *TextMessageContent:
		b = appendType(b, TypeTextMessageContent)
		b = appendMember(b, "messageId", e.MessageID)
		b = appendMember(b, "delta", e.Delta)
	case *TextMessageStart:
		b = appendType(b, TypeTextMessageStart)
		b = appendMember(b, "messageId", e.MessageID)
		b = appendOptional(b, "role", string(e.Role))
		b = appendOptional(b, "name", e.Name)
	case *TextMessageEnd:
		b = appendType(b, TypeTextMessageEnd)
		b = appendMember(b, "messageId", e.MessageID)
	case *StepStarted:
		b = appendType(b, TypeStepStarted)
		b = appendMember(b, "stepName", e.StepName)
	case *StepFinished:
		b = appendType(b, TypeStepFinished)
		b = appendMember(b, "stepName", e.StepName)
	case *ToolCallStart:
		b = appendType(b, TypeToolCallStart)
		b = appendMember(b, "toolCallId", e.ToolCallID)
		b = appendMember(b, "toolCallName", e.ToolCallName)
		b = appendOptional(b, "parentMessageId", e.ParentMessageID)
	case *ToolCallArgs:
		b = appendType(b, TypeToolCallArgs)
		b = appendMember(b, "toolCallId", e.ToolCallID)
		b = appendMember(b, "delta", e.Delta)
	case *ToolCallEnd:
		b = appendType(b, TypeToolCallEnd)
		b = appendMember(b, "toolCallId", e.ToolCallID)
	case *RunStarted:
		if e.Input != nil {
			return b, false
		}
		b = appendType(b, TypeRunStarted)
		b = appendMember(b, "threadId", e.ThreadID)
		b = appendMember(b, "runId", e.RunID)
		b = appendOptional(b, "parentRunId", e.ParentRunID)
	case *RunFinished:
		if e.Result != nil || e.Outcome != nil {
			return b, false
		}
		b = appendType(b, TypeRunFinished)
		b = appendMember(b, "threadId", e.ThreadID)
		b = appendMember(b, "runId", e.RunID)
	default:
		return b, false
	}
	if base.Timestamp != 0 {
		b = append(b, `,"timestamp":`...)
		b = strconv.AppendInt(b, base.Timestamp, 10)
	}
	return append(b, '}'), true
}

func appendType(b []byte, t EventType) []byte {
	b = append(b, `{"type":`...)
	return appendString(b, string(t))
}

func appendMember(b []byte, name, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

// appendOptional is appendMember for a member tagged omitempty.
func appendOptional(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	return appendMember(b, name, value)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string the way encoding/json does with
// HTML escaping off (as marshal encodes): ", \ and control characters
// escaped (\b, \f, \n, \r, \t short), invalid UTF-8 as \ufffd, U+2028 and
// U+2029 escaped, everything else as it is.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
