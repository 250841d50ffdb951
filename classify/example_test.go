package classify_test

import (
	"fmt"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
)

// A chain classifies a report by its error code; a code of the pipeline's
// own, added to the defaults, is classified like Triage's.
func Example() {
	codes := classify.DefaultCodes().Merge(classify.Codes{
		"WAREHOUSE_BUSY": {Type: triage.SystemError, Fault: fault.ServiceUnavailable},
	})
	chain := classify.New(classify.Config{Codes: codes})
	for _, code := range []string{"DB_TIMEOUT", "warehouse_busy", ""} {
		r := &triage.Report{AgentID: "query_engine", Data: triage.Data{ErrorCode: code, Message: "the column \"regoin\" does not exist"}}
		f := chain.Fault(r)
		res := chain.Classify(r, f)
		fmt.Printf("%q: %s by %s (%s) at %.2f; fault %s\n", code, res.Type, res.Method, res.Rule, res.Confidence, f.Code)
	}
	fmt.Println(chain.Steps())
	// Output:
	// "DB_TIMEOUT": query_error by error_code (DB_TIMEOUT) at 0.97; fault TIMEOUT
	// "warehouse_busy": system_error by error_code (WAREHOUSE_BUSY) at 0.97; fault SERVICE_UNAVAILABLE
	// "": schema_error by message (missing_field) at 0.75; fault AGENT_EXECUTION_ERROR
	// [reported error_code fault message fault default]
}
