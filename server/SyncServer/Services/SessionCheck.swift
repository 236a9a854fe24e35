import Foundation
import Postgres

/// Checks a bearer access token: its signature and expiry first (nothing is looked up for a
/// forged one), then that its session is still live, so a logout or a revoked device refuses the
/// token from the next request rather than when it expires.
struct SessionCheck: Sendable {
    let tokens: TokenIssuer
    let db: PostgresPool

    /// The caller of a request with `Authorization: <header>`.
    /// - Throws: ``ServiceError/unauthorized(_:)`` for a missing, invalid or expired token, or one
    ///   whose session ended.
    func caller(authorization header: String?, purpose: String) async throws -> Caller {
        let claims = try await claims(authorization: header, purpose: purpose)
        return try await db.withConnection { try Self.caller(claims, $0) }
    }

    /// The claims of a bearer token whose signature and expiry check out; its session is not yet
    /// looked at (``caller(_:_:)`` does, on a connection the request uses anyway).
    func claims(authorization header: String?, purpose: String) async throws -> AccessClaims {
        guard let header, header.lowercased().hasPrefix("bearer ") else {
            throw ServiceError.unauthorized("\(purpose) an 'Authorization: Bearer <access token>' header")
        }
        return try await tokens.verifyClaims(String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
    }

    /// The caller of verified `claims`, once their session is found live.
    /// - Throws: ``ServiceError/unauthorized(_:)`` when the session ended.
    static func caller(_ claims: AccessClaims, _ db: PostgresConnection) throws -> Caller {
        guard let session = try SessionQueries.live(db, id: claims.sessionID, userID: claims.userID) else {
            throw ServiceError.unauthorized("this session was ended (signed out, or the device was revoked): log in again")
        }
        return Caller(claims: claims, session: session)
    }
}

/// An authenticated caller: the token's claims and its live session.
struct Caller: Sendable {
    let claims: AccessClaims
    let session: SessionQueries.LiveSession
    var userID: UUID { claims.userID }
}
