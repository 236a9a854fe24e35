import Foundation
import Hummingbird
import SyncProtocol

/// A vault's activity: its last changes, which the page's script keeps current through the change
/// feed (``WebScript``); without script it is a page to reload.
extension WebApp {
    /// The longest the activity's wait holds a request, in seconds.
    static let activityWait = 25

    func addActivityPages(to vaultPages: RouterGroup<ServerRequestContext>) {
        vaultPages.get("activity") { request, context in try await page(request, context) { try await activityPage($0, context) } }
        vaultPages.get("activity/wait") { request, context in try await activityWait(request, context) }
    }

    /// The vault's last 100 changes: which device changed or deleted what, and when.
    func activityPage(_ caller: Caller, _ context: ServerRequestContext) async throws -> Response {
        let scope = try await scope(caller, context)
        let base = Self.base(scope)
        let seq = try await vault.changeSequence(scope)  // before the list: a change between the two is fetched again
        let rows: [[String: Any]] = try await vault.recentChanges(scope, limit: 100).map { change in
            [
                "when": WireDate.format(change.at), "device": FileVersionInfo.madeBy(device: change.device, author: change.author), "what": change.deleted ? "deleted" : "changed",
                "name": scope.encrypted ? "(an encrypted name)" : change.path, "version": change.version,
                "href": scope.encrypted ? "" : base + "history?path=" + Self.query(change.path),
            ]
        }
        return render("activity", chrome(caller, title: "Activity").merging([
            "heading": "Recent changes in \(scope.vaultName)", "crumbs": crumbs(scope, folder: "", last: "Activity"), "changes": rows, "hasChanges": !rows.isEmpty,
            "liveHref": base + "activity/wait", "seq": String(seq),
        ]) { $1 })
    }

    /// `…/activity/wait?after=N`: `{"seq": S}` as soon as the vault's change sequence S passes N
    /// (any device's change, this browser's too), else after ``activityWait`` seconds; `401` once
    /// the browser is signed out (also while it waits), `404`/`410` when the vault is not there.
    func activityWait(_ request: Request, _ context: ServerRequestContext) async throws -> Response {
        guard let caller = try await sessions.caller(request) else { throw ServiceError.unauthorized("signed out: sign in again") }
        guard let after = request.uri.queryParameters.get("after").flatMap(Int64.init), after >= 0 else {
            throw ServiceError.invalidRequest("the wait needs ?after=N, the change sequence the page shows")
        }
        let scope = try await scope(caller, context)
        // Subscribed before looking, as a device no other is, so every change is announced to it.
        let subscription = feed.subscribe(vaultID: scope.vaultID, userID: scope.userID, deviceID: UUID(), sessionID: caller.session.id, checkedAt: scope.checkedAt)
        defer { subscription.cancel() }
        var seq = try await vault.changeSequence(scope)
        if seq <= after {
            let delivery = await subscription.next(waitingAtMost: Self.activityWait)
            switch delivery {
            case .vaultDeleted: throw ServiceError.vaultDeleted("the vault '\(scope.vaultName)' was deleted")
            case .membershipEnded: throw ServiceError.membershipEnded("you are no longer a member of the vault '\(scope.vaultName)'")
            case .expired: throw ServiceError.unauthorized("signed out: sign in again")
            case .event, nil: seq = try await vault.changeSequence(scope)
            }
        }
        return try context.json(ActivityWait(seq: seq), status: .ok)
    }

    struct ActivityWait: Encodable {
        let seq: Int64
    }
}
