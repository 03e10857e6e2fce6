package commerce

import "fmt"

// ProtocolError is a response that breaks the documented API contract in a
// way that would make a listing incomplete or wrong if it were ignored. It
// is final: the same request would break it again, so no retry is made.
type ProtocolError struct {
	Method, Path string
	Problem      string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("%s %s: the service's response breaks the API contract: %s", e.Method, e.Path, e.Problem)
}

// Final tells the transport not to send the request again.
func (e *ProtocolError) Final() bool { return true }

// ContractBroken is the ProtocolError of a GET of path (with its query).
func ContractBroken(path, format string, args ...any) error {
	return &ProtocolError{Method: "GET", Path: path, Problem: fmt.Sprintf(format, args...)}
}
