package bridge

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
)

// sentSecret is a secret the process knows (fault.RegisterSecret): an id
// that carries it must not show it.
const sentSecret = "sk-sent-7f3a9c2e5b1d"

// FuzzSentIDs reads the ids of any arguments: nothing panics, and an id
// shown is valid UTF-8 of at most 128 runes, without a control or format
// character and without the secret. Seeds: testdata/fuzz/FuzzSentIDs.
func FuzzSentIDs(f *testing.F) {
	fault.RegisterSecret(sentSecret)
	f.Fuzz(func(t *testing.T, args []byte) {
		for key, id := range sentIDs(json.RawMessage(args)) {
			if key != "agentId" && key != "sessionId" {
				t.Fatalf("read %q", key)
			}
			s := id.shown
			if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxShownID || strings.Contains(s, sentSecret) {
				t.Fatalf("%q: shown %q", args, s)
			}
			for _, r := range s {
				if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
					t.Fatalf("%q: shown %q holds %U", args, s, r)
				}
			}
			if !id.given || (!id.str && s == "") {
				t.Fatalf("%q: %+v", args, id)
			}
		}
	})
}
