import Foundation
import Postgres
import SyncProtocol

/// App passwords: what a WebDAV client (Remotely Save, rclone, a file manager) holds instead of the
/// account's password. Each is a device of the account (platform `webdav`, listed, renamed and
/// revoked like any device) with a session of its own, so that revoking the device ends it at the
/// next request; it is shown once, kept only as its SHA-256 (it is 120 random bits, nothing to
/// stretch), and accepted only through HTTP Basic on `/dav/`, where failures are throttled like
/// sign-ins.
extension AuthService {
    static let appPasswordGroups = 6

    /// A new app password for the caller's account, and the device it is.
    func makeAppPassword(_ caller: Caller, name: String) async throws -> AppPasswordCreated {
        let name = try DeviceService.checkedName(name)
        let password = OneTimeCode.generate(groups: Self.appPasswordGroups)
        let hash = OneTimeCode.hash(OneTimeCode.normalized(password, length: Self.appPasswordGroups * 4) ?? password)
        let now = now()
        let device = try await db.transaction { tx in
            let device = try DeviceQueries.insert(tx, userID: caller.userID, name: name, platform: "webdav", push: nil, now: now)
            let session = try SessionQueries.insert(tx, userID: caller.userID, now: now)
            try SessionQueries.bind(tx, id: session, deviceID: device.deviceID)
            try AppPasswordQueries.insert(tx, id: UUID(), userID: caller.userID, deviceID: device.deviceID, sessionID: session, hash: hash, now: now)
            return device
        }
        return AppPasswordCreated(password: password, deviceID: device.deviceID, deviceName: device.deviceName)
    }

    /// Who HTTP Basic credentials on `/dav/` sign in: the account's email and one of its app
    /// passwords whose device is not revoked. Throttled as password sign-ins are, but counted after
    /// the check (``SignInThrottle/check(_:)``): WebDAV signs in with every request, which a count
    /// taken and given back each time would make a transaction dearer, and an app password holds
    /// 120 random bits, so a burst of guesses gains nothing.
    /// - Throws: ``ServiceError/invalidCredentials``, ``ServiceError/tooManyRequests(_:retryAfterSeconds:)``.
    /// What `then` reads for the holder is read on the same connection (the WebDAV door signs in,
    /// resolves the vault and reads what its method needs on one).
    func appPasswordHolder<Then: Sendable>(
        email: String, password: String, address: String, then: @escaping @Sendable (PostgresConnection, AppPasswordQueries.Holder) throws -> Then
    ) async throws -> (holder: AppPasswordQueries.Holder, then: Then) {
        let plan = throttle.appPasswordPlan(email: email, address: address)
        let hash = OneTimeCode.normalized(password, length: Self.appPasswordGroups * 4).map(OneTimeCode.hash)
        // The throttle and the password on one connection: every WebDAV request signs in.
        let found = try await db.withConnection { [throttle] db -> (AppPasswordQueries.Holder, Then)? in
            try throttle.check(plan, on: db)
            guard let holder = try hash.flatMap({ try AppPasswordQueries.holder(db, email: email, hash: $0) }) else { return nil }
            return (holder, try then(db, holder))
        }
        guard let found else {
            try await throttle.failed(plan)
            throw ServiceError.invalidCredentials
        }
        return found
    }
}
