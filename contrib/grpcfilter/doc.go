// Package grpcfilter maps the errors of gRPC calls to what the model
// should read: an exception filter for the mcperr pipeline that answers
// every gRPC status error a tool's backend returns with the nearest mcperr
// code, a fixed sentence written for the model and retry advice.
//
// Give it to the pipeline, for every tool:
//
//	p, err := filter.New(filter.WithFilters(grpcfilter.New()))
//
// or to the tools that call a gRPC backend (filter.WithFilters,
// filter.WithFilters). The filter finds the status with errors.As on
// interface{ GRPCStatus() *status.Status }, so an error wrapped with %w
// (fmt.Errorf("get order: %w", err)) still maps, and it reads the status
// the backend sent, not the text of the wrapping.
//
// # What the model reads
//
//	gRPC code           mcperr code              retry
//	NotFound            NOT_FOUND                no
//	AlreadyExists       CONFLICT                 no
//	Aborted             CONFLICT                 yes
//	InvalidArgument     VALIDATION_ERROR         no
//	OutOfRange          VALIDATION_ERROR         no
//	FailedPrecondition  BUSINESS_RULE_VIOLATION  no
//	ResourceExhausted   RATE_LIMITED             yes, after the backend's RetryInfo
//	DeadlineExceeded    TIMEOUT                  yes
//	Unavailable         UNAVAILABLE              yes, after 2 s or the backend's RetryInfo
//	Canceled            EXTERNAL_SERVICE_ERROR   yes
//	Unknown, Internal   EXTERNAL_SERVICE_ERROR   yes
//	Unimplemented       EXTERNAL_SERVICE_ERROR   no
//	DataLoss            EXTERNAL_SERVICE_ERROR   no
//	Unauthenticated     EXTERNAL_SERVICE_ERROR   no
//	PermissionDenied    EXTERNAL_SERVICE_ERROR   no
//
// After Canceled, Unknown, DeadlineExceeded, Internal, Unavailable,
// DataLoss or an unnamed code, the call may have done its work on the
// backend: the answer says so (filter.Response.MayHaveTakenEffect), its
// message ends at the code, and the pipeline gives the retry advice by the
// tool's annotations.
//
// Each answer's message names the gRPC code, as in "The service the tool
// called has no such record (gRPC NotFound); check the identifiers in the
// arguments.", and its details hold it as {"grpcCode": "NotFound"}. A code
// outside the list is answered as Unknown. TIMEOUT, UNAVAILABLE and
// EXTERNAL_SERVICE_ERROR are server errors: the client also reads a ref,
// which names the one log record that keeps the original error. Whenever
// the answer is retryable and the status carries an
// errdetails.RetryInfo, its delay is the advice.
//
// A status whose code is OK, an error without a status, and a nil status
// pass on to the next filter.
//
// # Credentials
//
// Unauthenticated and PermissionDenied are answered as the server's own
// fault, EXTERNAL_SERVICE_ERROR and not retryable: a tool calls its
// backends with the server's credentials, so a refusal means the server
// is misconfigured or its credentials expired, which the model cannot
// correct and the operator must. A server that forwards its caller's
// credentials to the backend, so that the refusal is the caller's, adds a
// filter of its own before this one that answers those two codes with
// UNAUTHORIZED and FORBIDDEN.
//
// # The request's own end
//
// A Canceled or DeadlineExceeded status that comes while the request's own
// context is done is the request's, not the backend's: the pipeline
// answers it, as every failure of a request that ends, with CANCELLED or
// TIMEOUT in its own text, before any filter runs. While the request is alive, the same codes are the
// backend's (or a deadline the tool set on its call) and map as above.
//
// # What is never sent
//
// The backend's status message is never sent unless SendMessage opts in
// for its code: status messages hold values (names, ids, queries) that
// belong to the backend. An opted-in message is sent quoted after the
// fixed sentence, on one line, at most 512 bytes of it. Details other than
// RetryInfo are never read.
//
// ResourceExhausted is also the code grpc-go gives a message larger than
// the client's or the server's limit; such a failure reads as a rate limit
// too, since the code alone cannot tell them apart.
package grpcfilter
