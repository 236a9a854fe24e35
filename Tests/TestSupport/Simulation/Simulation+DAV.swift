import Foundation
import SyncClient
import SyncProtocol

/// The WebDAV client's steps: another door to the same vault, writing through the server's rule.
extension Simulation {
    /// The owner's WebDAV client, with an app password made the first time.
    func davClient() async throws -> SimDAV {
        if let dav { return dav }
        // Signed in now: the clock may have moved past the account's first access token.
        let tokens = try await server.api.login(email: user.email, password: user.password)
        let created = try await server.api.makeAppPassword(name: "rclone", accessToken: tokens.accessToken)
        let client = SimDAV(server: server.baseURL, email: user.email, password: created.password, route: { [balancer] in balancer.route($0) })
        dav = client
        return client
    }

    /// The WebDAV client's edit of `path`, written back as ``SimOperation/davWrite(path:token:ifMatch:)`` says.
    func davWrite(_ path: String, token: String, ifMatch: Bool) async throws -> String? {
        let client = try await davClient()
        let kept = davHeld.removeValue(forKey: path)
        let read = kept == nil ? try await client.get(path) : kept
        // A note it has not got: it writes one anew, unless that could collide with a device's creation.
        guard read != nil || scenario.collisions || path.hasPrefix("dav/") else { return nil }
        let text = read?.text ?? NoteText.template(path, devices: scenario.devices)
        // Its own line (the one after the devices'), or a line at the end where edits collide.
        let (edited, replaced) = NoteText.apply(scenario.collisions ? .append : .ownLine, token: token, device: scenario.devices, to: text)
        if let replaced { ledger.excused.formUnion(Tokens.find(in: replaced)) }
        // What a blind write replaces unseen: the edits made since it read stay in the server's history.
        let current = ifMatch ? nil : try await serverContent(path)
        let outcome = try await client.put(path, edited, ifMatch: ifMatch ? .some(read?.etag) : nil)
        if verbose { print("WebDAV write of \(path) \(token): \(outcome)") }
        guard outcome == .written else {
            // Only a copy kept from an earlier step may be out of date: one read just now names
            // the current version, and the server must take a write over it.
            return kept == nil ? "WebDAV refused a write with the ETag of \(path) read just before (\(read?.etag ?? "no file"))" : nil
        }
        if let current { ledger.excused.formUnion(Set(Tokens.find(in: current)).subtracting(Tokens.find(in: text))) }
        ledger.written[token] = path
        ledger.mustBeGone[path] = nil
        // The change feed tells every watcher that is online.
        for device in schedules.keys where !devices[device].transport.isOffline { schedules[device]?.remoteChange() }
        return nil
    }
}
