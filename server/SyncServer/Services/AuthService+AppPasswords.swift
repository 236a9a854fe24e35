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
    /// The longest an app password may be made to last by `expires_in_seconds`: ten years.
    static let longestAppPasswordSeconds = 10 * 366 * 86_400

    /// A new app password for the caller's account, and the device it is; reaching the vault
    /// `request.vault` names only (one the account reaches: `404` otherwise), only reading when
    /// `read_only`, until `expires_in_seconds` from now.
    func makeAppPassword(_ caller: Caller, _ request: AppPasswordRequest) async throws -> AppPasswordCreated {
        let name = try DeviceService.checkedName(request.name)
        if let seconds = request.expiresInSeconds, !(1...Self.longestAppPasswordSeconds).contains(seconds) {
            throw ServiceError.invalidRequest("expires_in_seconds is how long the app password lasts: 1 to \(Self.longestAppPasswordSeconds) seconds (ten years)")
        }
        if request.under != nil, request.vault == nil {
            throw ServiceError.invalidRequest("under names a folder of one vault: name the vault too")
        }
        let under = try request.under.map(VaultService.folderPrefix)
        let password = OneTimeCode.generate(groups: Self.appPasswordGroups)
        let hash = OneTimeCode.hash(OneTimeCode.normalized(password, length: Self.appPasswordGroups * 4) ?? password)
        let now = now()
        let (device, reach) = try await db.transaction { tx in
            var reach = AppPasswordQueries.Reach(
                readOnly: request.readOnly ?? false, expiresAt: request.expiresInSeconds.map { now.addingTimeInterval(TimeInterval($0)) }, under: under)
            if let vault = request.vault {
                guard let found = try AccountQueries.vault(tx, userID: caller.userID, nameOrID: vault) else {
                    throw ServiceError.notFound("no vault '\(vault.prefix(64))' on this account")
                }
                reach.vaultID = found.id
            }
            let device = try DeviceQueries.insert(tx, userID: caller.userID, name: name, platform: "webdav", push: nil, now: now)
            let session = try SessionQueries.insert(tx, userID: caller.userID, now: now)
            try SessionQueries.bind(tx, id: session, deviceID: device.deviceID)
            try AppPasswordQueries.insert(tx, id: UUID(), userID: caller.userID, deviceID: device.deviceID, sessionID: session, hash: hash, reach: reach, now: now)
            return (device, reach)
        }
        return AppPasswordCreated(
            password: password, deviceID: device.deviceID, deviceName: device.deviceName, vaultID: reach.vaultID, readOnly: reach.readOnly, expiresAt: reach.expiresAt,
            under: reach.under)
    }

    /// Who a bearer token (an app password sent alone, as an agent's MCP client sends it) signs
    /// in, as ``appPasswordHolder(email:password:address:then:)`` does with an email; the token
    /// alone names its holder (kept unique by its hash). Throttled by the caller's address.
    func tokenHolder(_ token: String, address: String) async throws -> AppPasswordQueries.Holder {
        let plan = throttle.tokenPlan(address: address)
        let now = now()
        let hash = OneTimeCode.normalized(token, length: Self.appPasswordGroups * 4).map(OneTimeCode.hash)
        let found = try await db.withConnection { [throttle] db -> AppPasswordQueries.Holder? in
            try throttle.check(plan, on: db)
            return try hash.flatMap { try AppPasswordQueries.holder(db, email: nil, hash: $0, now: now) }
        }
        guard let found else {
            try await throttle.failed(plan)
            throw ServiceError.invalidCredentials
        }
        return found
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
        let now = now()
        let hash = OneTimeCode.normalized(password, length: Self.appPasswordGroups * 4).map(OneTimeCode.hash)
        // The throttle and the password on one connection: every WebDAV request signs in.
        let found = try await db.withConnection { [throttle] db -> (AppPasswordQueries.Holder, Then)? in
            try throttle.check(plan, on: db)
            guard let holder = try hash.flatMap({ try AppPasswordQueries.holder(db, email: email, hash: $0, now: now) }) else { return nil }
            return (holder, try then(db, holder))
        }
        guard let found else {
            try await throttle.failed(plan)
            throw ServiceError.invalidCredentials
        }
        return found
    }
}
