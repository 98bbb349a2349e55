// Package leaguesdk is the league.v2 protocol of the Even/Odd Agent League:
// one Go type per message, validation that maps to the protocol's error
// catalog, auth tokens, and the JSON-RPC 2.0 transport over HTTP — a [Server]
// that agents serve on POST /mcp and a [Client] that calls them with
// deadlines, retries and a circuit breaker per endpoint.
//
// Serving a tool:
//
//	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return "player:P01" }})
//	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity},
//		func(ctx context.Context, req *leaguesdk.Request, call *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
//			return &leaguesdk.ChooseParityResponse{
//				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", token, call.ConversationID, time.Now()),
//				MatchID:      call.MatchID,
//				PlayerID:     "P01",
//				ParityChoice: leaguesdk.Even,
//			}, nil
//		})
//	http.ListenAndServe("127.0.0.1:8101", srv)
//
// A request goes through the Server in this order: the wire form is read
// (spec method, message-type method, envelope, tools/call); the tool is
// found by method, alias or message_type (for tools/call by the tool name
// or the message its arguments carry, the message type deciding); the
// message is decoded into the
// tool's input type; [ServerConfig.Middleware] runs, first outermost, with the
// [*Request]; then [Validate] (unless [Tool.NoValidate]), [ServerConfig.Authorize]
// (unless [Tool.Public]), and the handler. [Server.HandleRaw] adds a tool that reads
// the raw message from its *Request instead of a typed input; a request no
// tool takes goes to [ServerConfig.Unknown] when it is set. Registering a
// tool name or alias twice panics.
//
// Calling it:
//
//	c := leaguesdk.NewClient(leaguesdk.ClientConfig{})
//	var resp leaguesdk.ChooseParityResponse
//	err := c.Call(ctx, "http://127.0.0.1:8101/mcp", leaguesdk.MethodChooseParity, call, &resp)
//
// Errors are [*Error] values carrying a catalog [Code] (E001…E021); use
// [errors.As] or [CodeOf]. Most agent authors do not use this package directly:
// the player package wraps it behind a Strategy.
package leaguesdk
