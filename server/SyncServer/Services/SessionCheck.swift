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
        guard let header, header.lowercased().hasPrefix("bearer ") else {
            throw ServiceError.unauthorized("\(purpose) an 'Authorization: Bearer <access token>' header")
        }
        let claims = try await tokens.verifyClaims(String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
        guard let session = try await db.withConnection({ try SessionQueries.live($0, id: claims.sessionID, userID: claims.userID) }) else {
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
