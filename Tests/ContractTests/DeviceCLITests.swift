import Foundation
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// `vaultsync devices` as a user meets it: real `vaultsync` processes against a real server. A
/// lost phone is cut off from the laptop; its next sync is refused with exit code 4 and its files
/// stay; signing it in again makes it a new device that syncs what it kept.
@Suite struct DeviceCLITests: CLISuite {
    private func devices(_ vault: URL) async throws -> [[String: Any]] {
        let result = try await vaultsync(["devices", "list", "--vault", vault.path, "--json"])
        #expect(result.exitCode == 0, "\(result)")
        return try result.json()["devices"] as? [[String: Any]] ?? []
    }

    /// A sign-in that never registered a device (a script's, a stolen password's) survives every
    /// device revocation: `devices` shows it as bound to no device, and `devices end-session` ends
    /// it, its token refused from then on; a session of another account is not found.
    @Test func aSessionBoundToNoDeviceIsShownAndEnded() async throws {
        let laptop = newFolder()
        defer { try? FileManager.default.removeItem(at: laptop) }
        let email = "sessions-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let url = server.baseURL.absoluteString
            #expect(try await vaultsync(["init", laptop.path, "--server", url, "--email", email, "--create-account", "--device-name", "laptop"]).exitCode == 0)
            let bare = try await server.api.login(email: email, password: Self.password)
            let stranger = try await server.newUser()

            let listed = try await vaultsync(["devices", "--vault", laptop.path])
            #expect(listed.exitCode == 0 && listed.stdout.contains("sessions bound to no device"), "\(listed)")
            let sessions = try await vaultsync(["devices", "sessions", "--vault", laptop.path, "--json"])
            let rows = try sessions.json()["sessions"] as? [[String: Any]] ?? []
            #expect(rows.count == 2 && rows.filter { $0["device_id"] == nil }.count == 1 && rows.filter { $0["current"] as? Bool == true }.count == 1, "\(sessions)")
            let bareID = try #require(rows.first { $0["device_id"] == nil }?["session_id"] as? String).lowercased()

            let ended = try await vaultsync(["devices", "end-session", String(bareID.prefix(8)), "--vault", laptop.path])
            #expect(ended.exitCode == 0 && ended.stdout.contains("ended session \(bareID)"), "\(ended)")
            await #expect(performing: { try await server.api.devices(accessToken: bare.accessToken) }, throws: { ($0 as? SyncAPIError)?.status == 401 })
            #expect(!(try await vaultsync(["devices", "--vault", laptop.path])).stdout.contains("bound to no device"))
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0, "the folder's own session goes on")

            let strangersSession = try #require(try await server.api.sessions(accessToken: stranger.tokens.accessToken).sessions.first?.sessionID)
            let refused = try await vaultsync(["devices", "end-session", strangersSession.uuidString.lowercased(), "--vault", laptop.path])
            #expect(refused.exitCode == 1 && refused.stderr.contains("no live session"), "\(refused)")
            // Nor can the other account end the laptop's.
            let laptopSession = try #require(UUID(uuidString: rows.first { $0["current"] as? Bool == true }?["session_id"] as? String ?? ""))
            await #expect(performing: { try await server.api.endSession(laptopSession, accessToken: stranger.tokens.accessToken) }, throws: {
                ($0 as? SyncAPIError)?.status == 404
            })
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
        }
    }

    @Test func aRevokedDeviceIsRefusedAndKeepsItsFiles() async throws {
        let laptop = newFolder(), phone = newFolder()
        defer { for folder in [laptop, phone] { try? FileManager.default.removeItem(at: folder) } }
        let email = "devices-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        try await TestServer.with { server in
            let url = server.baseURL.absoluteString
            #expect(try await vaultsync(["signup", "--server", url, "--email", email]).exitCode == 0)
            for (folder, name) in [(laptop, "laptop"), (phone, "phone")] {
                let linked = try await vaultsync(["init", folder.path, "--server", url, "--email", email, "--device-name", name])
                #expect(linked.exitCode == 0, "\(linked)")
            }
            let listed = try await devices(laptop)
            #expect(Set(listed.compactMap { $0["device_name"] as? String }) == ["laptop", "phone"])
            #expect(listed.first { $0["current"] as? Bool == true }?["device_name"] as? String == "laptop")
            let phoneID = try #require(listed.first { $0["device_name"] as? String == "phone" }?["device_id"] as? String)

            let renamed = try await vaultsync(["devices", "rename", String(phoneID.prefix(8)), "lost phone", "--vault", laptop.path])
            #expect(renamed.exitCode == 0 && renamed.stdout.contains("renamed phone to lost phone"), "\(renamed)")
            let unknown = try await vaultsync(["devices", "revoke", "tablet", "--vault", laptop.path])
            #expect(unknown.exitCode == 1 && unknown.stderr.contains("'tablet'") && unknown.stderr.contains("lost phone"), "names what exists: \(unknown)")

            // The phone has a change of its own that was never synced.
            try Data("# kept\n".utf8).write(to: phone.appendingPathComponent("offline.md"))
            let revoked = try await vaultsync(["devices", "revoke", "Lost Phone", "--vault", laptop.path, "--json"])
            #expect(revoked.exitCode == 0, "\(revoked)")
            let outcome = try revoked.json()
            #expect(outcome["revoked"] as? String == phoneID && outcome["this_device"] as? Bool == false)
            #expect(try await devices(laptop).compactMap { $0["device_name"] as? String } == ["laptop"])

            let refused = try await vaultsync(["sync", phone.path])
            #expect(refused.exitCode == 4 && refused.stdout.contains("was revoked") && refused.stdout.contains("vaultsync login"), "\(refused)")
            #expect(try String(contentsOf: phone.appendingPathComponent("offline.md"), encoding: .utf8) == "# kept\n", "its files stay")

            // Signed in again, it is a new device and pushes what it kept.
            #expect(try await vaultsync(["login", phone.path]).exitCode == 0)
            let now = try await devices(phone)
            let current = try #require(now.first { $0["current"] as? Bool == true })
            #expect(current["device_id"] as? String != phoneID && now.count == 2)
            #expect(try await vaultsync(["sync", phone.path]).exitCode == 0)
            #expect(try await vaultsync(["sync", laptop.path]).exitCode == 0)
            #expect(try String(contentsOf: laptop.appendingPathComponent("offline.md"), encoding: .utf8) == "# kept\n")

            // Revoking this device signs it out.
            let own = try await vaultsync(["devices", "revoke", String((current["device_id"] as! String).prefix(6)), "--vault", phone.path])
            #expect(own.exitCode == 0 && own.stdout.contains("this device"), "\(own)")
            let after = try await vaultsync(["sync", phone.path])
            #expect(after.exitCode == 4, "\(after)")
        }
    }
}
