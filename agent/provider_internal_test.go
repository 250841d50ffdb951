package agent

import (
	"strings"
	"testing"
)

func TestConversationBounds(t *testing.T) {
	t.Parallel()
	t.Run("Messages", func(t *testing.T) {
		t.Parallel()
		var c conversation
		for i := range 40 {
			c.add(Turn{User: strings.Repeat("u", i+1), Assistant: "a"})
		}
		if got := 2 * len(c.turns); got != maxHistoryMessages {
			t.Fatalf("%d messages kept, want %d", got, maxHistoryMessages)
		}
		// The oldest went first: the first kept is the 9th prompt.
		if c.turns[0].User != strings.Repeat("u", 9) || c.turns[len(c.turns)-1].User != strings.Repeat("u", 40) {
			t.Errorf("kept %q … %q", c.turns[0].User, c.turns[len(c.turns)-1].User)
		}
		checkHistoryBytes(t, &c)
	})
	t.Run("Bytes", func(t *testing.T) {
		t.Parallel()
		var c conversation
		big := strings.Repeat("x", 100<<10)
		for range 5 {
			c.add(Turn{User: "q", Assistant: big})
		}
		if len(c.turns) != 2 || c.bytes > maxHistoryBytes {
			t.Errorf("%d turns, %d bytes kept; want 2 within %d", len(c.turns), c.bytes, maxHistoryBytes)
		}
		checkHistoryBytes(t, &c)
		// A turn larger than the bound leaves no history.
		c.add(Turn{User: "q", Assistant: strings.Repeat("y", maxHistoryBytes)})
		if len(c.turns) != 0 || c.bytes != 0 {
			t.Errorf("%d turns, %d bytes kept after an oversized turn", len(c.turns), c.bytes)
		}
	})
}

func checkHistoryBytes(t *testing.T, c *conversation) {
	t.Helper()
	n := 0
	for _, tr := range c.turns {
		n += tr.size()
	}
	if n != c.bytes {
		t.Errorf("bytes = %d, the turns hold %d", c.bytes, n)
	}
}
