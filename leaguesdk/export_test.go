package leaguesdk

// Exports for the package's external tests.

// BreakerState returns the state of endpoint's circuit breaker in c.
func BreakerState(c *Client, endpoint string) string { return c.breakerState(endpoint) }

// CompareVersions is compareVersions.
var CompareVersions = compareVersions

// ErrorMessage is errorMessage.
var ErrorMessage = errorMessage
