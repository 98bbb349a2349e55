// Package agentkit holds the plumbing the three agents share: serving an
// http.Handler until a context ends, registering with a manager that may
// not be up yet, and the per-agent log file of the data layer.
//
// Quick start, the skeleton of an agent's Run:
//
//	ln, err := agentkit.Listen(cfg.Addr)
//	if err != nil {
//		return err
//	}
//	go agentkit.RetryUntilUp(ctx, log, 2*time.Second, "registration", register)
//	return agentkit.Serve(ctx, ln, handler, 5*time.Second, cfg.TLS, log)
//
// Every agent writes its JSON-lines log through an AgentLog, opened at
// logs/agents/<agent_id>.log.jsonl once the id is known (at once for the
// manager, after registration for players and referees):
//
//	alog := agentkit.NewAgentLog(leaguesdk.NameSender("player", name))
//	log := alog.Logger(cfg.Logger)
//	defer alog.Close()
//	// … once registered:
//	err := alog.Open(dataRoot, playerID)
package agentkit
