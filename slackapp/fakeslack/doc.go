// Package fakeslack is an in-process fake of Slack's Web API and Socket Mode
// for tests: the real slack-go client talks to it over HTTP and WebSocket, and
// tests read back what the bot posted, uploaded and acknowledged. It is a
// test-support package; only tests import it.
//
// What is faithful to Slack's wire format: requests are accepted as
// form-encoded, multipart or JSON bodies, with the token in an
// "Authorization: Bearer" header or a "token" field; answers are
// {"ok":true,...} or {"ok":false,"error":"..."} with HTTP 200, rate limits are
// HTTP 429 with a Retry-After header in seconds, and server failures are HTTP
// 5xx with an HTML body. Bot and app-level tokens are told apart
// (not_authed, invalid_auth, not_allowed_token_type). Blocks are checked
// against Block Kit's documented limits and rejected with invalid_blocks and
// Slack-style "[json-pointer:...]" messages. Socket Mode sends the hello
// message, WebSocket pings every two seconds, envelopes in Slack's shape, and
// disconnect messages; the acks clients send back are recorded. Several
// clients may connect at once, as several processes of one app do, and each
// envelope goes to one of them, as Slack sends it: the newest (Send) or the
// one a test picks (SendTo), never to all. Response
// URLs answer errors like webhooks do, with a 4xx status and the error code
// as text. The streaming methods take markdown_text and chunks (markdown_text,
// task_update, plan_update, blocks) and refuse a chunk Slack would refuse
// with invalid_chunks; SetExperience plays the legacy assistant view or the
// Agent messaging experience, where suggested prompts set for a thread show
// nothing. Payload builders produce the JSON Slack sends for app_mention and
// message events, assistant_thread_started, app_home_opened and
// app_context_changed, block_actions and slash commands, with unique trigger ids
// and envelope ids as Slack's are (apps deduplicate by them), and
// SignedRequest signs a request the way Slack signs HTTP deliveries.
// usergroups.users.list lists the groups SetUserGroup made and answers
// no_such_subteam for any other id, and missing_scope to a token without
// usergroups:read (SetScopes), as Slack does. To act while a call is
// under way, HoldMethod holds a method's calls (and HoldUploads the uploads)
// until the test releases them.
//
// What is simplified: there is one workspace, one bot and one app, and any
// channel id exists unless SetNotInChannel says the bot is not in it. Only
// the methods the bot uses are served (auth.test, chat.postMessage,
// chat.update, chat.postEphemeral, chat.startStream, chat.appendStream,
// chat.stopStream, chat.delete, assistant.threads.setStatus, setSuggestedPrompts, setTitle,
// files.getUploadURLExternal, files.completeUploadExternal,
// apps.connections.open); others answer unknown_method. An ephemeral
// message is refused (user_not_in_channel) to someone who is not a member
// of a channel whose members SetMembers set, and a click on one comes as
// Slack sends it (is_ephemeral, its thread, no message object). Messages
// are stored as posted: Slack's own rewriting of text and blocks (block ids, link
// expansion, mention resolution) is not imitated. Lengths are counted in
// characters (runes). Block checks cover the limits the bot can reach, not
// every Block Kit rule; every broken block, malformed JSON included, is
// invalid_blocks (Slack says invalid_blocks_format for JSON that is not an
// array), and the wording of the explanations is ours. Response URLs never
// expire and have no use limit, and a file is shared without a message
// appearing in the channel.
package fakeslack
