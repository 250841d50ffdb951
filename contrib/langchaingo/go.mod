module github.com/triage-go/triage/contrib/langchaingo

go 1.26.0

replace github.com/triage-go/triage => ../..

require github.com/triage-go/triage v0.0.0-00010101000000-000000000000

require github.com/tmc/langchaingo v0.1.14 // indirect
