// Package llm holds the strategies that ask a language model for each
// choice, on the SDKs users of these APIs know:
//
//   - [Chat] ("llm_chat") speaks the chat completions API, through OpenAI's Go
//     SDK (github.com/openai/openai-go/v3), to any base URL: Ollama,
//     llama.cpp's server, vLLM, LM Studio, OpenAI and most hosted services.
//   - [Gemini] ("llm") speaks Google's generate-content API through
//     Google's Gen AI SDK (google.golang.org/genai).
//
// They live in a package of their own so that a player that uses no model
// (package strategies and the [player] package) links neither SDK. The
// repository's examples/modelplayer is a player program that plays them;
// examples/player, which links neither SDK, does not.
//
// Both ask for a structured answer, {"parity": "even"|"odd"}, where the
// server supports it, and read free text tolerantly where it does not
// ([ParseParity]); both retry a call answered 429 or 5xx within the move's
// deadline. When the model fails, rambles or is late, the [player.Agent]
// answers with its fallback and counts it ([player.Agent.Decisions]); the
// arena reports those fallbacks per entry.
//
// # Configuration
//
// [ChatFromEnv] reads the variables users of OpenAI-style servers have set:
//
//	OPENAI_BASE_URL   the server's base URL (LEAGUE_CHAT_BASE_URL overrides it)
//	OLLAMA_HOST       where Ollama listens, when no base URL is set
//	                  (default http://localhost:11434/v1, a local Ollama)
//	LEAGUE_CHAT_MODEL the model, required ("llama3.2", "gpt-4o-mini")
//	OPENAI_API_KEY    the API key, when the server needs one
//	                  (LEAGUE_CHAT_API_KEY overrides it)
//
// The servers' usual base URLs: Ollama http://localhost:11434/v1, llama.cpp's
// server http://localhost:8080/v1, vLLM http://localhost:8000/v1 (port 8000
// is also the league manager's default: start one of them on another
// port), LM Studio http://localhost:1234/v1, OpenAI https://api.openai.com/v1.
//
// [GeminiFromEnv] reads LEAGUE_LLM_MODEL (required), GEMINI_API_KEY or
// GOOGLE_API_KEY (LEAGUE_LLM_API_KEY overrides them) and, optionally,
// GOOGLE_GEMINI_BASE_URL (LEAGUE_LLM_BASE_URL overrides it).
//
// A program picks a strategy by name with [ByName], which knows the names of
// [strategies.ByName] too:
//
//	s, err := llm.ByName("llm_chat", nil) // an error naming LEAGUE_CHAT_MODEL when it is not set
//	if err != nil {
//		log.Fatal(err)
//	}
//	a, err := player.New(player.Config{Name: "Agent Llama", League: league, Strategy: s,
//		Fallback: strategies.NewOpponentModel(0, nil)})
package llm
