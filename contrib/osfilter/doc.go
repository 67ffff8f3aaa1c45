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
//	error                                     mcperr code              retry
//	fs.ErrNotExist                            NOT_FOUND                no
//	fs.ErrPermission                          FORBIDDEN                no
//	fs.ErrExist                               CONFLICT                 no
//	ENOTEMPTY (a directory not empty)         CONFLICT                 no
//	a timeout of a call the tool made         TIMEOUT                  yes
//	ECONNREFUSED, a Unix socket not there     UNAVAILABLE              yes, after 2 s
//	ECONNRESET, ECONNABORTED                  EXTERNAL_SERVICE_ERROR   yes
//
// A reset, or a timeout after the connection was made, may have come after
// the service acted, unless it is a dial's or the *url.Error names a method
// that only reads: the answer says so (filter.Response.MayHaveTakenEffect),
// its message leaves the retry advice out, and the pipeline gives it by the
// tool's annotations.
//
// A timeout is a context.DeadlineExceeded, an os.ErrDeadlineExceeded (a
// deadline set on a connection or a file) or any error whose Timeout
// method reports true, as a net.Error, a *url.Error of an http.Client
// with a Timeout, and ETIMEDOUT do. The messages name neither the path
// nor the address: both are the server's internals.
//
// TIMEOUT, UNAVAILABLE and EXTERNAL_SERVICE_ERROR are server errors: the client
// also reads a ref, which names the one log record that keeps the original
// error, path and address included. A refused connection is UNAVAILABLE:
// nothing was done, so the call is safe to retry once the service listens
// again. A reset connection is EXTERNAL_SERVICE_ERROR, retryable, and its
// message asks the model to check whether the operation took effect, since
// the service may have done it before the connection broke.
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
// alive, a timeout is the tool's own deadline for a call it
// made, and reads as TIMEOUT with the sentence above, which names the
// service the tool depends on; the database, gRPC and HTTP packs answer
// their timeouts with TIMEOUT too.
//
// The errno values are those of Unix systems; on Windows a network
// error's code is the Winsock one, which the errno rows do not match, and
// on Plan 9 they never match.
package osfilter
