package store_test

import (
	"reflect"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// TestTenantIsItsParts checks that Tenant declares no method of its own:
// each is in exactly one of the small interfaces it is composed of, which
// the users of a tenant's data take instead of the whole.
func TestTenantIsItsParts(t *testing.T) {
	parts := []reflect.Type{
		reflect.TypeFor[triage.State](),
		reflect.TypeFor[store.Knowledge](),
		reflect.TypeFor[store.Agents](),
		reflect.TypeFor[store.OccurrenceSaver](),
		reflect.TypeFor[store.Reporter](),
		reflect.TypeFor[store.Records](),
		reflect.TypeFor[store.Feed](),
		reflect.TypeFor[store.Requests](),
		reflect.TypeFor[store.Enqueuer](),
		reflect.TypeFor[store.Checkpoints](),
		reflect.TypeFor[store.Runs](),
		reflect.TypeFor[store.MCPSessions](),
		reflect.TypeFor[store.Throttles](),
		reflect.TypeFor[store.Workflows](),
		reflect.TypeFor[store.AlertRules](),
		reflect.TypeFor[store.RunCounts](),
		reflect.TypeFor[store.Trends](),
	}
	owner := map[string]string{}
	for _, p := range parts {
		for m := range p.Methods() {
			if o, ok := owner[m.Name]; ok {
				t.Errorf("%s is in both %s and %s", m.Name, o, p)
			}
			owner[m.Name] = p.String()
		}
	}
	tenant := reflect.TypeFor[store.Tenant]()
	for m := range tenant.Methods() {
		if _, ok := owner[m.Name]; !ok {
			t.Errorf("Tenant.%s is in none of its parts: declare it on the small interface of its idea", m.Name)
		}
	}
	if tenant.NumMethod() != len(owner) {
		t.Errorf("Tenant has %d methods, its parts %d", tenant.NumMethod(), len(owner))
	}
}
