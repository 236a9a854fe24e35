import Foundation
import SyncClient
import SyncProtocol

/// The WebDAV clients' steps: another door to the same vault, writing through the server's rule.
extension Simulation {
    /// `person`'s WebDAV client, with an app password made the first time.
    func davClient(_ person: SimPerson) async throws -> SimDAV {
        if let client = dav[person] { return client }
        let account = switch person {
        case .owner: user
        case .writer: people[scenario.writers.min()!]!
        case .reader: people[scenario.readers.min()!]!
        }
        // Signed in now: the clock may have moved past the account's first access token.
        let tokens = try await server.api.login(email: account.email, password: account.password)
        let created = try await server.api.makeAppPassword(name: "rclone", accessToken: tokens.accessToken)
        let vault = person == .owner ? "default" : sharedVault!
        let client = SimDAV(server: server.baseURL, email: account.email, password: created.password, vault: vault, route: { [balancer] in balancer.route($0) })
        dav[person] = client
        return client
    }

    /// `person`'s WebDAV client reads `path` and keeps it.
    func davRead(_ path: String, by person: SimPerson) async throws {
        davHeld["\(person):\(path)"] = try await davClient(person).get(path)
    }

    /// A WebDAV client's edit of `path`, written back as ``SimOperation/davWrite(path:token:ifMatch:by:)`` says.
    func davWrite(_ path: String, token: String, ifMatch: Bool, by person: SimPerson) async throws -> String? {
        let client = try await davClient(person)
        let kept = davHeld.removeValue(forKey: "\(person):\(path)")
        let read = kept == nil ? try await client.get(path) : kept
        // A note it has not got: it writes one anew, unless that could collide with a device's creation.
        guard read != nil || scenario.collisions || path.hasPrefix("dav/") else { return nil }
        let text = read?.text ?? NoteText.template(path, devices: scenario.devices)
        // Its own line (the one after the devices'), or a line at the end where edits collide.
        let (edited, replaced) = NoteText.apply(scenario.collisions ? .append : .ownLine, token: token, device: scenario.devices, to: text)
        if person == .reader { return try await readerWrite(path, edited, token: token, ifMatch: ifMatch ? .some(read?.etag) : nil, with: client) }
        if let replaced { ledger.excused.formUnion(Tokens.find(in: replaced)) }
        // A blind write replaces nothing it did not read: an edit made since is merged, or the
        // write is kept as a conflict record on the server, where its token must stay.
        let outcome = try await client.put(path, edited, ifMatch: ifMatch ? .some(read?.etag) : nil)
        if verbose { print("WebDAV write of \(path) \(token)\(person.client): \(outcome)") }
        switch outcome {
        case .written, .merged, .unchanged: break
        case .keptAsConflict:
            if ifMatch { return "a WebDAV write of \(path) with If-Match was kept as a conflict record" }
            ledger.inRecords[token] = path
            return nil
        case .forbidden: return "the \(person)'s WebDAV write of \(path) was refused (403)"
        case .refused:
            // Only a copy kept from an earlier step may be out of date: one read just now names
            // the current version, and the server must take a write over it.
            return kept == nil ? "WebDAV refused a write with the ETag of \(path) read just before (\(read?.etag ?? "no file"))" : nil
        }
        ledger.written[token] = path
        ledger.mustBeGone[path] = nil
        return nil
    }

    /// A reader's WebDAV write: refused (`403`), and the server's file as it was. Its token must
    /// reach neither the server nor any device.
    func readerWrite(_ path: String, _ text: String, token: String, ifMatch: String??, with client: SimDAV) async throws -> String? {
        let before = try await serverContent(path)
        let outcome = try await client.put(path, text, ifMatch: ifMatch)
        if verbose { print("WebDAV write of \(path) \(token) by the reader's client: \(outcome)") }
        ledger.readerTokens.insert(token)
        guard outcome == .forbidden else { return "the reader's WebDAV write of \(path) came to \(outcome), not 403" }
        guard try await serverContent(path) == before else { return "the reader's refused WebDAV write of \(path) changed the server's file" }
        return nil
    }
}
