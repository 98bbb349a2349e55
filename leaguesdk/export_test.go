package leaguesdk

// Exports for the package's external tests.

// BreakerState returns the state of endpoint's circuit breaker in c.
func BreakerState(c *Client, endpoint string) string { return c.breakerState(endpoint) }

// CompareVersions is compareVersions.
var CompareVersions = compareVersions

// ErrorMessage is errorMessage.
var ErrorMessage = errorMessage

// ReadRequest is readRequest, the wire layer's reading of a request body.
func ReadRequest(body []byte, into func(method string, params []byte) (rest []byte, ok bool)) (wireRequest, []byte, bool, *RPCError) {
	req, id, read, bad := readRequest(body, into)
	return req, id, read, bad
}

// LocateCall is locateCall, the wire layer's finding of a request's
// message.
func LocateCall(method string, params []byte) (wireCall, *RPCError) {
	return locateCall(method, params)
}
