package web

//go:generate go run ../cmd/tsgen -o packages/kit/src/codes.ts
