package web

//go:generate go run ../internal/tsgen -o src/kit/codes.ts
