package commerce

import (
	"encoding/json"
	"strings"
)

// DecodeRecordBody decodes the answer to a GET of one record (path): its
// data object, which must be the record with id (ids compare without
// regard to case, as UUIDs do). A body that is not JSON is a plain error
// (the caller retries it); one that breaks the contract is a ProtocolError.
func DecodeRecordBody[T Record](body []byte, kind Kind[T], id string, keepRaw bool, path string) (T, Issues, error) {
	var zero T
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return zero, nil, err
	}
	if len(doc.Data) == 0 || string(doc.Data) == "null" {
		return zero, nil, ContractBroken(path, "the response has no data object")
	}
	rec, issues, err := kind.DecodeRecord(doc.Data, keepRaw)
	if err != nil {
		return zero, nil, ContractBroken(path, "%v", err)
	}
	if got := rec.RecordID(); !strings.EqualFold(got, id) {
		what := kind.RecordNoun()
		return zero, nil, ContractBroken(path, "asked for %s %s but the service answered with %s %s", what, id, what, got)
	}
	return rec, issues, nil
}
