package llm_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies/llm"
)

// A Chat asks any chat completions server; here a stand-in for a local
// Ollama, llama.cpp or vLLM that answers the structured answer it was
// asked for. In a program, llm.ChatFromEnv or llm.ByName("llm_chat", nil)
// reads the server, the model and the key from the environment.
func ExampleChat() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"1","object":"chat.completion","created":1,"model":"llama3.2",`+
			`"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\"parity\":\"odd\"}"}}]}`)
	}))
	defer srv.Close()

	model := &llm.Chat{BaseURL: srv.URL + "/v1", Model: "llama3.2"}
	choice, err := model.ChooseParity(context.Background(), player.ParityCall{PlayerID: "P01", MatchID: "R1M1", OpponentID: "P02"})
	fmt.Println(choice, err)
	// Output: odd <nil>
}

// ByName knows the model strategies and the ready ones of package
// strategies; a model strategy without its model says which variable to
// set.
func ExampleByName() {
	if _, err := llm.ByName("llm_chat", nil); err != nil {
		fmt.Println("llm_chat needs LEAGUE_CHAT_MODEL")
	}
	s, _ := llm.ByName("always_odd", nil)
	choice, _ := s.ChooseParity(context.Background(), player.ParityCall{})
	fmt.Println("always_odd:", choice)
}
