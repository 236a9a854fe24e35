import Foundation
import Postgres
import SyncProtocol

/// Enrolment codes: a signed-in person makes one (the web app's "Add a device"), and a new device
/// signs in with it instead of the password (`POST /auth/enroll`, `vaultsync init --enroll`). A
/// code is shown once, lives 15 minutes, signs in once, and can be revoked before.
extension AuthService {
    /// A new code for the caller's account, and when it stops working.
    func makeEnrollmentCode(_ caller: Caller) async throws -> (code: String, expiresAt: Date) {
        let code = OneTimeCode.generate()
        let now = now()
        let expires = now.addingTimeInterval(OneTimeCode.enrollmentLifetime)
        let hash = OneTimeCode.hash(OneTimeCode.normalized(code) ?? code)
        try await db.transaction { try EnrollmentQueries.insert($0, id: UUID(), userID: caller.userID, hash: hash, now: now, expiresAt: expires) }
        return (code, expires)
    }

    /// The caller's codes that can still be used (never the codes themselves).
    func enrollmentCodes(_ caller: Caller) async throws -> [EnrollmentQueries.Code] {
        let now = now()
        return try await db.withConnection { try EnrollmentQueries.usable($0, userID: caller.userID, now: now) }
    }

    /// - Throws: ``ServiceError/notFound(_:)`` when the account has no usable code of that id.
    func revokeEnrollmentCode(_ caller: Caller, id: UUID) async throws {
        let now = now()
        guard try await db.transaction({ try EnrollmentQueries.revoke($0, userID: caller.userID, id: id, now: now) }) else {
            throw ServiceError.notFound("no usable enrolment code \(id.uuidString.lowercased()) on this account")
        }
    }

    /// `POST /auth/enroll`: signs a new device in with a code (the device registers next, as after
    /// a password sign-in). Failures are throttled per address like password sign-ins.
    /// - Throws: ``ServiceError/enrollmentCodeRefused`` for a code that is unknown, used, revoked or
    ///   expired (one answer for all), ``ServiceError/tooManyRequests(_:retryAfterSeconds:)``.
    func enroll(_ request: EnrollRequest, address: String) async throws -> AuthTokens {
        let plan = throttle.plan(email: "enrollment code from \(address)", address: address, ticketID: nil)
        try await throttle.admit(plan)
        let now = now()
        let user = try await OneTimeCode.normalized(request.code).asyncFlatMap { normalized in
            try await db.transaction { try EnrollmentQueries.redeem($0, hash: OneTimeCode.hash(normalized), now: now) }
        }
        guard let user else { throw ServiceError.enrollmentCodeRefused }
        try await throttle.succeededAfterAdmit(plan)
        return try await startSession(userID: user)
    }
}

extension Optional {
    /// `flatMap` with an asynchronous transform.
    func asyncFlatMap<T>(_ transform: (Wrapped) async throws -> T?) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
