import Foundation
import Logging
import Postgres
import SyncProtocol

/// What an operator (an account marked admin: `vaultsync-server user set-admin`) does from the web
/// app: see and manage users, make invitation codes, look at the server's health. Each action goes
/// through the rule the command line uses (a reset is ``AuthService/setPassword(userID:_:keeping:)``,
/// a deletion ``AccountService/delete(userID:keeping:)``), and every one first checks the caller is
/// an admin, which the session check read with the session itself.
struct OperatorService: Sendable {
    let db: PostgresPool
    let auth: AuthService
    let accounts: AccountService
    let vault: VaultService
    let store: any BlobStore
    let metrics: ServerMetrics
    let now: @Sendable () -> Date

    /// - Throws: ``ServiceError/operatorOnly`` when the caller is not an admin.
    func admit(_ caller: Caller) throws {
        guard caller.session.isAdmin else { throw ServiceError.operatorOnly }
    }

    func users(_ caller: Caller) async throws -> [AccountQueries.Listed] {
        try admit(caller)
        return try await db.withConnection { try AccountQueries.listUsers($0) }
    }

    /// A user and their usage report (with the server's defaults where they have no limit of their own).
    func user(_ caller: Caller, id: UUID) async throws -> (user: AccountQueries.Listed, usage: UsageResponse, overrides: QuotaQueries.Overrides) {
        try admit(caller)
        let found = try await db.withConnection { db in
            try AccountQueries.listUsers(db, only: id).first.map { ($0, try QuotaQueries.overrides(db, userID: id)) }
        }
        guard let (user, overrides) = found else { throw ServiceError.notFound("no such user") }
        return (user, try await vault.usage(userID: id), overrides)
    }

    func setLimits(_ caller: Caller, id: UUID, _ overrides: QuotaQueries.Overrides) async throws {
        try admit(caller)
        for value in [overrides.quotaBytes, overrides.quotaFiles, overrides.maxFileBytes] where (value ?? 0) < 0 {
            throw ServiceError.invalidRequest("a limit must not be negative")
        }
        guard try await db.transaction({ try OperatorQueries.setOverrides($0, userID: id, overrides) }) else { throw ServiceError.notFound("no such user") }
    }

    /// Disables a user (their sessions end at once; nothing is deleted) or enables them again.
    func setDisabled(_ caller: Caller, id: UUID, disabled: Bool) async throws {
        try admit(caller)
        guard id != caller.userID else { throw ServiceError.invalidRequest("you cannot disable your own account here") }
        let now = now()
        guard try await db.transaction({ try OperatorQueries.setDisabled($0, userID: id, disabled: disabled, now: now) }) else {
            throw ServiceError.notFound("no such user")
        }
    }

    /// Sets a user's password; every device of theirs signs in again with it.
    func resetPassword(_ caller: Caller, id: UUID, password: String) async throws {
        try admit(caller)
        try await auth.setPassword(userID: id, password, keeping: id == caller.userID ? caller.session.id : nil)
    }

    func delete(_ caller: Caller, id: UUID) async throws -> AccountDeletion {
        try admit(caller)
        guard id != caller.userID else { throw ServiceError.invalidRequest("you cannot delete your own account here: use the Account page") }
        return try await accounts.delete(userID: id, keeping: nil)
    }

    // MARK: invitations

    /// A new invitation code (shown once) and when it stops working.
    func makeInvitation(_ caller: Caller, note: String) async throws -> (code: String, expiresAt: Date) {
        try admit(caller)
        let code = OneTimeCode.generate()
        let now = now()
        let expires = now.addingTimeInterval(OneTimeCode.invitationLifetime)
        let hash = OneTimeCode.hash(OneTimeCode.normalized(code) ?? code)
        let note = String(note.trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
        try await db.transaction { try InvitationQueries.insert($0, id: UUID(), createdBy: caller.userID, hash: hash, note: note, now: now, expiresAt: expires) }
        return (code, expires)
    }

    func invitations(_ caller: Caller) async throws -> [InvitationQueries.Invitation] {
        try admit(caller)
        let now = now()
        return try await db.withConnection { try InvitationQueries.usable($0, now: now) }
    }

    func revokeInvitation(_ caller: Caller, id: UUID) async throws {
        try admit(caller)
        let now = now()
        guard try await db.transaction({ try InvitationQueries.revoke($0, id: id, now: now) }) else {
            throw ServiceError.notFound("no usable invitation code of that id")
        }
    }

    // MARK: the server

    /// The server's health as `/health/ready` and `/health` see it, the blob store's, and the
    /// figures of `/metrics` an operator looks at first.
    struct Status: Sendable {
        let readiness: Readiness
        let storageFull: Bool
        let blobs: BlobHealth?
        let figures: [(name: String, value: Double)]
    }

    func status(_ caller: Caller) async throws -> Status {
        try admit(caller)
        let readiness = await Readiness.check(db)
        let blobs = try? await db.withConnection(BlobVerifyQueries.health)
        if let blobs { metrics.recordBlobHealth(blobs) }
        let text = String(decoding: metrics.text(), as: UTF8.self)
        return Status(readiness: readiness, storageFull: store.isOutOfSpace, blobs: blobs, figures: Self.figures(text, named: Self.shownFigures))
    }

    /// The series the status page shows, in its order.
    static let shownFigures = [
        "vaultsync_http_requests_total", "vaultsync_versions_confirmed_total", "vaultsync_conflicts_total", "vaultsync_blob_bytes_received_total",
        "vaultsync_blob_bytes_sent_total", "vaultsync_event_connections", "vaultsync_database_checkouts_total", "vaultsync_purge_runs_total",
    ]

    /// The value of each series `names` in Prometheus text, its labelled samples summed (a series
    /// not reported yet is 0); comments and other series are skipped.
    static func figures(_ text: String, named names: [String]) -> [(name: String, value: Double)] {
        var sums: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let name = String(series.prefix { $0 != "{" && $0 != " " })
            sums[name, default: 0] += value
        }
        return names.map { ($0, sums[$0] ?? 0) }
    }
}
