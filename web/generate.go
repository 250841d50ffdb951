package web

//go:generate go run ../cmd/tsgen -o src/kit/codes.ts
