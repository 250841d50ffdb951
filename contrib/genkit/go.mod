module github.com/triage-go/triage/contrib/genkit

go 1.26.0

replace github.com/triage-go/triage => ../..

require github.com/triage-go/triage v0.0.0-00010101000000-000000000000

require github.com/firebase/genkit/go v1.4.0 // indirect
