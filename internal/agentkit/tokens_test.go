package agentkit_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
)

var tokenRE = regexp.MustCompile(`^tok_[0-9a-f]{32}$`)

// testToken is a well-formed token that no registry issued.
const testToken = "tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c"

func TestTokens(t *testing.T) {
	var reg agentkit.Tokens // the zero value is ready to use
	p1 := reg.Issue("P01")
	p2 := reg.Issue("P02")
	if !tokenRE.MatchString(p1) || p1 == p2 {
		t.Fatalf("issued %q, %q", p1, p2)
	}
	cases := []struct {
		name          string
		sender, token string
		code          leaguesdk.Code
		field         string
	}{
		{"own token", "player:P01", p1, "", ""},
		{"own token, sender without colon", "player_P02", p2, "", ""},
		{"missing token", "player:P01", "", leaguesdk.CodeAuthTokenMissing, "auth_token"},
		{"unknown token", "player:P01", leaguesdk.NewToken(), leaguesdk.CodeAuthTokenInvalid, "auth_token"},
		{"truncated token", "player:P01", p1[:len(p1)-1], leaguesdk.CodeAuthTokenInvalid, "auth_token"},
		{"token of another agent", "player:P01", p2, leaguesdk.CodeAuthTokenInvalid, "sender"},
		{"referee speaking with a player's token", "referee:P01x", p1, leaguesdk.CodeAuthTokenInvalid, "sender"},
	}
	for _, c := range cases {
		id, err := reg.Verify(c.sender, c.token)
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			_, wantID := leaguesdk.SplitSender(c.sender)
			if id != wantID {
				t.Errorf("%s: id %q", c.name, id)
			}
			continue
		}
		var e *leaguesdk.Error
		if !errors.As(err, &e) || e.Code != c.code || e.Field != c.field {
			t.Errorf("%s: got %v, want %s on %s", c.name, err, c.code, c.field)
		}
		if e != nil && strings.Contains(e.Error(), p1) {
			t.Errorf("%s: error text reveals a token: %v", c.name, e)
		}
	}
	// Re-issuing replaces the old token; the old one stops working.
	p1b := reg.Issue("P01")
	if _, err := reg.Verify("player:P01", p1); leaguesdk.CodeOf(err) != leaguesdk.CodeAuthTokenInvalid {
		t.Fatalf("old token still valid: %v", err)
	}
	if tok, ok := reg.Token("P01"); !ok || tok != p1b {
		t.Fatalf("Token(P01) = %q, %v", tok, ok)
	}
	// Bind restores a known token.
	reg.Bind("REF01", testToken)
	if id, ok := reg.Owner(testToken); !ok || id != "REF01" {
		t.Fatalf("Owner = %q, %v", id, ok)
	}
	if _, err := reg.Verify("referee:REF01", testToken); err != nil {
		t.Fatal(err)
	}
	reg.Revoke("REF01")
	if _, err := reg.Verify("referee:REF01", testToken); leaguesdk.CodeOf(err) != leaguesdk.CodeAuthTokenInvalid {
		t.Fatalf("revoked token still valid: %v", err)
	}
	if _, ok := reg.Token("REF01"); ok {
		t.Fatal("revoked agent still has a token")
	}
}

// A token is bound to one agent; it cannot speak for another.
func ExampleTokens_Verify() {
	var tokens agentkit.Tokens
	p1 := tokens.Issue("P01")
	tokens.Issue("P02")

	id, err := tokens.Verify("player:P01", p1)
	fmt.Println(id, err)
	_, err = tokens.Verify("player:P02", p1) // P01's token, P02's name
	fmt.Println(leaguesdk.CodeOf(err))
	_, err = tokens.Verify("player:P01", "")
	fmt.Println(leaguesdk.CodeOf(err))
	// Output:
	// P01 <nil>
	// E012
	// E011
}
