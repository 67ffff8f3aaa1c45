// Package osfilter maps the errors of files and network connections to
// what the model should read: an exception filter for the mcperr pipeline
// that answers the errors of package os, io/fs and net with the nearest
// mcperr code, a fixed sentence written for the model and retry advice. It
// uses the standard library only.
//
// Give it to the tools that read the files the model names, or call other
// services over the network:
//
//	gosdk.AddTool(s, tool, handler, filter.WithFilters(osfilter.New()))
//
// or to the pipeline, for every tool:
//
//	p, err := filter.New(filter.WithFilters(osfilter.New()))
//
// Per tool is the safer choice where the server reads files of its own
// (configuration, templates): a missing file of the server's reads as
// NOT_FOUND too, since an error cannot tell whose file it was.
//
// # What the model reads
//
//	error                                       code                     retry
//	fs.ErrNotExist                              NOT_FOUND                no
//	fs.ErrPermission                            FORBIDDEN                no
//	fs.ErrExist                                 CONFLICT                 no
//	ENOTEMPTY                                   CONFLICT                 no
//	ECONNREFUSED, a Unix socket file not there  UNAVAILABLE              yes, after 2 s
//	a timeout of a dial or a reading HTTP call  TIMEOUT                  yes
//	any other timeout, a bare one included      TIMEOUT                  outcome unknown
//	a reset of a dial or a reading HTTP call    EXTERNAL_SERVICE_ERROR   yes
//	any other reset                             EXTERNAL_SERVICE_ERROR   outcome unknown
//	any other *net.OpError                      passed on                -
//	any other error                             passed on                -
//
// A timeout is a context.DeadlineExceeded, an os.ErrDeadlineExceeded (a
// deadline set on a connection or a file) or any error whose Timeout
// method reports true, as a net.Error, a *url.Error of an http.Client
// with a Timeout, and ETIMEDOUT do. A reset is ECONNRESET, ECONNABORTED or
// a connection's EPIPE (a write after the peer closed it; a pipe's is
// passed on). A dial's failure has a *net.OpError whose Op is "dial"; a
// reading HTTP call's has a *url.Error naming GET, HEAD, OPTIONS or TRACE.
//
// "Outcome unknown": the call may have reached the service and done its
// work before it failed. The answer says so
// (filter.Response.MayHaveTakenEffect) and its message leaves the retry
// advice out; the pipeline gives it by the tool's annotations: retryable
// on a tool annotated read-only or idempotent, else not retryable, with
// the envelope's outcome "unknown" and the model told to check before it
// calls again. Only a dial's failure shows that nothing was sent, and only
// a reading HTTP call's that sending it again changes nothing. Every other
// timeout or reset is of unknown outcome: one on a connection that was
// made (a read's or a write's), one of an HTTP request whose method
// changes things, and one that does not show how far the call got. A bare
// context.DeadlineExceeded of a deadline the tool set itself is such a
// one: it reads the same whether the deadline passed while the tool
// waited for a worker or while a statement it had sent ran, since pgx and
// the MySQL driver return the context's error in place of the read's.
//
// A refused connection is UNAVAILABLE: nothing was done, so the call is
// safe to retry once the service listens again. TIMEOUT, UNAVAILABLE and
// EXTERNAL_SERVICE_ERROR are server errors: the client also reads a ref,
// which names the one log record that keeps the original error, path and
// address included. The messages name neither the path nor the address:
// both are the server's internals.
//
// Any other error of a network connection (a *net.OpError), even one that
// holds a file error such as EACCES or ENOENT, is not a file's, and is
// passed on, but for a dial to a Unix socket whose file does not exist,
// which is a service not running: UNAVAILABLE. Every other error passes
// on to the next filter.
//
// # The request's own end
//
// A failure while the request's own context is done is the request's end,
// which the pipeline answers (TIMEOUT or CANCELLED, with its own text)
// before any filter runs: the filter never sees it. While the request is
// alive, a timeout is the tool's own deadline, or a connection's, and
// reads as TIMEOUT as the table says, with a sentence that names the
// service the tool depends on; the database, gRPC and HTTP packs answer
// their timeouts with TIMEOUT too.
//
// The errno values are those of Unix systems; on Windows a network
// error's code is the Winsock one, which the errno rows do not match, and
// on Plan 9 they never match.
package osfilter
