package aguirun_test

import (
	"bufio"
	"bytes"
	"context"
	"testing"

	"github.com/triage-go/triage/aguirun"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
	"github.com/triage-go/triage/wire/present"
)

func capPackets(t *testing.T, g *graph.Runnable[st]) ([]*present.Packet, error) {
	t.Helper()
	var buf bytes.Buffer
	_, runErr := aguirun.RunCAP(context.Background(), &buf, g, st{}, aguirun.CAPOptions{StreamID: "r1"})
	var out []*present.Packet
	sc := bufio.NewScanner(&buf)
	for i := int64(0); sc.Scan(); i++ {
		p, err := present.ParsePacket(sc.Bytes())
		if err != nil {
			t.Fatalf("packet %s: %v", sc.Bytes(), err)
		}
		if p.Seq == nil || *p.Seq != i || p.StreamID != "r1" {
			t.Fatalf("packet %d: %s", i, sc.Bytes())
		}
		out = append(out, p)
	}
	return out, runErr
}

func TestRunCAP(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("answer", func(ctx context.Context, s st) (st, error) {
			graph.Notify(ctx, fault.New(fault.ServiceUnavailable, "Using cached data."))
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "Cached "})
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "answer."})
			return s, nil
		}).
		AddEdge("answer", graph.End).SetEntry("answer"))
	packets, err := capPackets(t, g)
	if err != nil {
		t.Fatal(err)
	}
	var ops []present.Op
	for _, p := range packets {
		ops = append(ops, p.Op)
	}
	if len(ops) != 4 || ops[0] != present.OpEvent || ops[1] != present.OpDelta || ops[3] != present.OpClose ||
		packets[0].Event.UserError == nil || packets[0].Event.UserError.Message != "Using cached data." || packets[1].Delta+packets[2].Delta != "Cached answer." {
		t.Fatalf("ops %v", ops)
	}
}

func TestRunCAPFails(t *testing.T) {
	g := compile(t, graph.New[st]().
		AddNode("answer", func(ctx context.Context, s st) (st, error) {
			graph.Emit(ctx, aguirun.Text{MessageID: "m1", Delta: "Half"})
			return s, fault.New(fault.RateLimited, "")
		}).
		AddEdge("answer", graph.End).SetEntry("answer"))
	packets, err := capPackets(t, g)
	if fault.CodeOf(err) != fault.RateLimited {
		t.Fatalf("err %v", err)
	}
	last := packets[len(packets)-1]
	if len(packets) != 2 || last.Op != present.OpError || last.Error.Code != "RATE_LIMITED" || last.Error.Severity != present.SeverityTransient {
		t.Fatalf("packets %+v", packets)
	}
}
