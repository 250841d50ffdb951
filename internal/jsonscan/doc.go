// Package jsonscan walks the text of valid JSON without decoding it: the
// ends of its strings and values, an object's members and an array's
// items, each a slice of the text. It is the one home of that walk for
// the decoders that read a document once (internal/jsonmember) and for
// fault's sanitizer, which writes a document's members straight from
// their text; neither may import the other (jsonmember's errors are
// fault's).
//
// Every function but Plain and String takes text that encoding/json
// accepts: what it returns for anything else is not defined.
package jsonscan
