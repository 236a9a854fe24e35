import NIOCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Postgres
import SyncProtocol

extension ServiceError {
    /// The HTTP status and envelope body for this error: the only place errors meet the wire.
    var wire: (status: HTTPResponse.Status, body: ErrorBody) {
        switch self {
        case .invalidRequest(let m):
            (.badRequest, ErrorBody(code: .invalidRequest, message: m))
        case .invalidPath(let e):
            (.badRequest, ErrorBody(code: .invalidPath, message: e.description, path: e.path))
        case .invalidHash(let e):
            (.badRequest, ErrorBody(code: .invalidHash, message: e.description))
        case .invalidCursor(let m):
            (.badRequest, ErrorBody(code: .invalidCursor, message: m))
        case .batchTooLarge(let count, let limit):
            (.badRequest, ErrorBody(code: .batchTooLarge, message: "\(count) files in one request; the limit is \(limit): split the batch", limit: Int64(limit)))
        case .duplicatePath(let p):
            (.badRequest, ErrorBody(code: .duplicatePath, message: "path '\(p)' appears more than once in the request", path: p.rawValue))
        case .unsupportedProtocol(let sent):
            (.badRequest, ErrorBody(
                code: .unsupportedProtocol,
                message: sent.map { "protocol version '\($0)' is not supported" } ?? "the \(SyncHeader.protocolVersion) header is required",
                supportedVersions: ProtocolVersion.supported))
        case .deviceRequired(let m):
            (.badRequest, ErrorBody(code: .deviceRequired, message: m))
        case .unsupportedProvider(let p):
            (.badRequest, ErrorBody(code: .unsupportedProvider, message: "login provider '\(p)' is not supported; use 'password'"))
        case .invalidCredentialsFormat(let m):
            (.badRequest, ErrorBody(code: .invalidCredentialsFormat, message: m))
        case .unauthorized(let m):
            (.unauthorized, ErrorBody(code: .unauthorized, message: m))
        case .invalidCredentials:
            (.unauthorized, ErrorBody(code: .invalidCredentials, message: "email or password is wrong"))
        case .enrollmentCodeRefused:
            (.unauthorized, ErrorBody(
                code: .invalidCredentials,
                message: "the enrolment code is unknown, used, revoked or expired (a code signs in once, within 15 minutes): make a new one on the web app's Add a device page"))
        case .invalidRefreshToken:
            (.unauthorized, ErrorBody(code: .invalidRefreshToken, message: "the refresh token is unknown, expired or revoked: log in again"))
        case .deviceRevoked:
            (.unauthorized, ErrorBody(code: .invalidRefreshToken, message: "this device was revoked; signing in again makes it a new device"))
        case .refreshTokenReused:
            (.unauthorized, ErrorBody(code: .refreshTokenReused, message: "this refresh token was already used; every session of that login is now revoked: log in again"))
        case .invalidSignature:
            (.forbidden, ErrorBody(code: .invalidSignature, message: "the blob URL's signature does not match"))
        case .urlExpired:
            (.forbidden, ErrorBody(code: .urlExpired, message: "the blob URL has expired: ask for a new one"))
        case .notFound(let m):
            (.notFound, ErrorBody(code: .notFound, message: m))
        case .vaultDeleted(let m):
            (.gone, ErrorBody(code: .vaultDeleted, message: m))
        case .methodNotAllowed(let allowed):
            (.methodNotAllowed, ErrorBody(
                code: .methodNotAllowed,
                message: allowed.isEmpty ? "method not allowed on this resource" : "method not allowed on this resource; it takes \(allowed.joined(separator: ", "))"))
        case .keyConflict(let m):
            (.conflict, ErrorBody(code: .keyConflict, message: m))
        case .namesChanged(let m):
            (.conflict, ErrorBody(code: .namesChanged, message: m))
        case .rekeyOutdated(let m):
            (.conflict, ErrorBody(code: .rekeyOutdated, message: m))
        case .keyProofInvalid(let m):
            (.forbidden, ErrorBody(code: .keyProofInvalid, message: m))
        case .vaultNotEmpty(let m):
            (.conflict, ErrorBody(code: .vaultNotEmpty, message: m))
        case .vaultExists(let name):
            (.conflict, ErrorBody(code: .vaultExists, message: "you have a vault named '\(name)' already"))
        case .invalidIdentityToken(let m):
            (.unauthorized, ErrorBody(code: .invalidIdentityToken, message: m))
        case .accountExists(let provider):
            (.conflict, ErrorBody(code: .accountExists, message: "an account with this email exists already; it is never linked by itself: sign in to it, then link \(provider) to it"))
        case .identityInUse:
            (.conflict, ErrorBody(code: .identityInUse, message: "this identity is linked to an account already"))
        case .lastSignInMethod:
            (.conflict, ErrorBody(code: .lastSignInMethod, message: "this is the account's last way to sign in: link another first"))
        case .signupDisabled:
            (.forbidden, ErrorBody(code: .signupDisabled, message: "this server does not create new accounts"))
        case .formRefused(let m):
            (.forbidden, ErrorBody(code: .formRefused, message: m))
        case .accountDisabled:
            (.forbidden, ErrorBody(code: .accountDisabled, message: "this account is disabled: ask the server's operator"))
        case .invitationRefused:
            (.forbidden, ErrorBody(
                code: .signupDisabled,
                message: "this server creates accounts only with an invitation code, and this one is missing, unknown, used, revoked or expired: ask the server's operator for one"))
        case .ownerOnly(let message):
            (.forbidden, ErrorBody(code: .ownerOnly, message: message))
        case .adminOnly(let message):
            (.forbidden, ErrorBody(code: .adminOnly, message: message))
        case .alreadyMember(let message):
            (.conflict, ErrorBody(code: .alreadyMember, message: message))
        case .membershipEnded(let message):
            (.gone, ErrorBody(code: .membershipEnded, message: message))
        case .fileRefused(let error):
            (Self.status(of: error.code), ErrorBody(code: error.code, message: error.message))
        case .locked(let message):
            (.init(code: 423, reasonPhrase: "Locked"), ErrorBody(code: .locked, message: message))
        case .readOnly(let reason):
            (.forbidden, ErrorBody(code: .readOnly, message: reason ?? "you are a reader of this vault: it syncs to you, but nothing you change is written to it (ask its owner or an admin for the writer role)"))
        case .operatorOnly:
            (.forbidden, ErrorBody(code: .operatorOnly, message: "only the server's operators (accounts marked with 'vaultsync-server user set-admin') may do this"))
        case .emailTaken:
            (.conflict, ErrorBody(code: .emailTaken, message: "an account with this email exists already: log in instead"))
        case .fileTooLarge(let path, let size, let limit):
            (.contentTooLarge, ErrorBody(code: .fileTooLarge, message: "file '\(path)' is \(size) bytes; the limit is \(limit)", path: path.rawValue, limit: limit))
        case .contentMismatch(let m):
            (.badRequest, ErrorBody(code: .contentMismatch, message: m))
        case .uploadMissing(let m):
            (.conflict, ErrorBody(code: .uploadMissing, message: m))
        case .rangeNotSatisfiable(let size):
            (.rangeNotSatisfiable, ErrorBody(code: .rangeNotSatisfiable, message: "the blob has \(size) bytes: nothing is left to read from there; download it from the start"))
        case .payloadTooLarge(let limit):
            (.contentTooLarge, ErrorBody(code: .payloadTooLarge, message: "request body is over \(limit) bytes", limit: Int64(limit)))
        case .quotaExceeded(let m, let usage):
            (.tooManyRequests, ErrorBody(code: .quotaExceeded, message: m, usage: usage))
        case .cursorExpired(let m):
            (.gone, ErrorBody(code: .cursorExpired, message: m))
        case .pathCaseConflict(let path, let existing):
            (.conflict, ErrorBody(code: .pathCaseConflict, message: "'\(existing)' exists already and differs from '\(path)' only by letter case", path: path.rawValue))
        case .server(let failure) where failure.isOutOfSpace:
            (.init(code: 507, reasonPhrase: "Insufficient Storage"), ErrorBody(code: .storageUnavailable, message: failure.message))
        case .server(let failure):
            (.serviceUnavailable, ErrorBody(code: .unavailable, message: failure.message))
        case .tooManyRequests(let m, _):
            (.tooManyRequests, ErrorBody(code: .tooManyRequests, message: m))
        case .bodyTooSlow(let m):
            (.requestTimeout, ErrorBody(code: .requestTimeout, message: m))
        }
    }

    /// The status a refused file's code answers with when it is the request's whole answer, as
    /// the same code does elsewhere.
    static func status(of code: ErrorCode) -> HTTPResponse.Status {
        switch code {
        case .quotaExceeded: .tooManyRequests
        case .invalidPath, .invalidRequest, .contentMismatch: .badRequest
        case .fileTooLarge: .contentTooLarge
        default: .conflict
        }
    }

    /// Headers the answer carries besides the envelope: `Retry-After` for errors a client should
    /// simply retry later, `Allow` for a method the path does not take.
    var headers: HTTPFields {
        switch self {
        case .server(let failure): [.retryAfter: String(failure.retryAfterSeconds)]
        case .tooManyRequests(_, let seconds): [.retryAfter: String(seconds)]
        case .methodNotAllowed(let allowed) where !allowed.isEmpty: [.allow: allowed.joined(separator: ", ")]
        default: [:]
        }
    }

    /// The error's answer: its status, headers and envelope (naming `requestID`).
    func response(requestID: String? = nil) -> Response {
        var response = Self.envelope(wire.status, wire.body, requestID: requestID)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// An envelope answer with `status` and `body`.
    static func envelope(_ status: HTTPResponse.Status, _ body: ErrorBody, requestID: String?) -> Response {
        var envelope = ErrorEnvelope(error: body)
        envelope.error.requestID = requestID
        let data = (try? WireCoding.encoder().encode(envelope)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Turns any error a handler threw into a domain error, or nil for a server fault.
    static func from(_ error: any Error) -> ServiceError? {
        switch error {
        case let e as ServiceError: return e
        case let e as VaultPathError: return .invalidPath(e)
        case let e as ContentHashError: return .invalidHash(e)
        case let e as DecodingError: return .invalidRequest(describe(e))
        case let e as FramedBodyError: return .invalidRequest(e.description)
        case is NIOTooManyBytesError: return .payloadTooLarge(limit: ServerRequestContext.maxBodyBytes)
        case let e as PostgresError where e.isUnavailable || e.sqlState == "53300":  // 53300: too many connections
            return .server(.databaseDown(ErrorCause(e)))
        case let e as PostgresError where e.sqlState == "53100":  // disk_full
            return .server(.databaseFull(ErrorCause(e)))
        case let e as HTTPError:
            switch e.status {
            case .notFound: return .notFound("no such endpoint")
            case .methodNotAllowed: return .methodNotAllowed(allowed: [])
            case .contentTooLarge: return .payloadTooLarge(limit: ServerRequestContext.maxBodyBytes)
            case .badRequest: return .invalidRequest(e.body ?? "bad request")
            case .unauthorized: return .unauthorized(e.body ?? "authentication required")
            default: return nil
            }
        default: return nil
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func where_(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return path.isEmpty ? "body" : String(path.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let type, let c): return "\(where_(c)): expected \(type)"
        case .valueNotFound(let type, let c): return "\(where_(c)): expected \(type), found null"
        case .keyNotFound(let key, let c): return "\(where_(c)): missing field '\(key.stringValue)'"
        case .dataCorrupted(let c): return c.codingPath.isEmpty ? "body is not valid JSON" : "\(where_(c)): \(c.debugDescription)"
        @unknown default: return "body does not match the expected shape"
        }
    }
}

/// Renders every failure as the protocol's error envelope: domain errors as their 4xx, anything
/// else as a logged 500 that reveals nothing internal.
struct ErrorEnvelopeMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            if let mapped = ServiceError.from(error) {
                response = mapped.response(requestID: context.id)
            } else {
                response = ServiceError.envelope(.internalServerError, ErrorBody(code: .internalError, message: "internal server error; report the request id"), requestID: context.id)
            }
            // The server's side failed (the database, the store): the request's log line names
            // the cause, which the answer keeps to itself.
            if response.status.code >= 500 { RequestFailure.note(error, logger: context.logger) }
        }
        response.headers[HTTPField.Name(SyncHeader.requestID)!] = context.id
        return response
    }
}
