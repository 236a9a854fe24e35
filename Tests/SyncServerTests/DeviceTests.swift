import Foundation
import Postgres
import SyncClient
import SyncProtocol
import TestSupport
import Testing

/// Devices against a real server and Postgres: listing, renaming, and revocation, which ends the
/// device's sessions at once (access and refresh tokens, event connections, push token).
@Suite struct DeviceTests {
    private static func refused(_ code: ErrorCode, _ status: Int) -> @Sendable (any Error) -> Bool {
        { ($0 as? SyncAPIError)?.code == code && ($0 as? SyncAPIError)?.status == status }
    }

    /// A device says which folders it holds, for the lists; only of itself, and only words.
    @Test func aDeviceSaysWhichFoldersItHolds() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, _) = try await user.signedInDevice("laptop")
            let (phone, _) = try await user.signedInDevice("phone")
            try await server.api.setFolders("all but Archive/", deviceID: phone.info.deviceID, accessToken: phone.session.accessToken)
            let listed = try await server.api.devices(accessToken: laptop.session.accessToken).devices
            #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.deviceName, $0.folders ?? "-") }) == ["laptop": "-", "phone": "all but Archive/"])
            await #expect(performing: { try await server.api.setFolders("only x/", deviceID: phone.info.deviceID, accessToken: laptop.session.accessToken) },
                throws: Self.refused(.notFound, 404))
            for words in ["", "a\u{0}b", String(repeating: "x", count: 501)] {
                await #expect(performing: { try await server.api.setFolders(words, deviceID: phone.info.deviceID, accessToken: phone.session.accessToken) },
                    throws: Self.refused(.invalidRequest, 400))
            }
            #expect(try await server.api.devices(accessToken: laptop.session.accessToken).devices.first { $0.deviceName == "phone" }?.folders == "all but Archive/",
                "a refused request changed nothing")
        }
    }

    @Test func revokingADeviceEndsItsSessionAtOnce() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, _) = try await user.signedInDevice("laptop")
            let (phone, phoneTokens) = try await user.signedInDevice("phone", platform: "ios", pushToken: String(repeating: "ab", count: 32))
            _ = try await phone.write("a.md", "from the phone")
            let feed = try await FeedRecorder.connect(phone.session, to: server.baseURL)

            let listed = try await server.api.devices(accessToken: laptop.session.accessToken).devices
            #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.deviceName, $0.current) }) == ["laptop": true, "phone": false], "the caller's own device is marked")

            try await server.api.revokeDevice(phone.info.deviceID, accessToken: laptop.session.accessToken)

            // Refused from the next request, though the access token has not expired.
            await #expect(performing: { try await phone.allChanges() }, throws: Self.refused(.unauthorized, 401))
            await #expect(performing: { try await server.api.devices(accessToken: phone.session.accessToken) }, throws: Self.refused(.unauthorized, 401))
            await #expect(performing: { try await server.api.refresh(refreshToken: phoneTokens.refreshToken) }, throws: Self.refused(.invalidRefreshToken, 401))
            #expect(try await feed.end() == .tokenExpired, "its event connection is closed")
            // Another session naming the revoked device is told to sign in again, not served.
            let borrowed = VaultSession(accessToken: laptop.session.accessToken, deviceID: phone.info.deviceID)
            await #expect(performing: { try await server.api.state(borrowed) }, throws: Self.refused(.unauthorized, 401))

            let pushToken = try PostgresConnection(connectionString: server.databaseURL)
                .query("SELECT push_token IS NULL, revoked_at IS NOT NULL FROM devices WHERE id = $1", [phone.info.deviceID]).first!
            #expect(try pushToken.bool(0) && pushToken.bool(1), "its push token is dropped; the row stays for the history")
            #expect(try await laptop.read("a.md") == "from the phone", "the other devices go on, and the phone's versions stay")
            #expect(try await server.api.devices(accessToken: laptop.session.accessToken).devices.map(\.deviceName) == ["laptop"])
            await #expect(performing: { try await server.api.revokeDevice(phone.info.deviceID, accessToken: laptop.session.accessToken) }, throws: Self.refused(.notFound, 404))

            // Signing in again on the phone makes a new device.
            let (again, _) = try await user.signedInDevice("phone")
            #expect(again.info.deviceID != phone.info.deviceID)
            #expect(try await again.read("a.md") == "from the phone")
        }
    }

    /// A device that signs in again names itself: it stays the same device, and its new session is
    /// its own at once, so revoking it ends that session before it made any vault request.
    @Test func aDeviceSigningInAgainStaysItselfAndCanBeRevoked() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, _) = try await user.signedInDevice("laptop")
            let (phone, phoneTokens) = try await user.signedInDevice("phone")
            try await server.api.logout(refreshToken: phoneTokens.refreshToken)
            let again = try await server.api.login(email: user.email, password: user.password)
            let same = try await server.api.registerDevice(
                RegisterDeviceRequest(deviceName: "phone", platform: "linux", deviceID: phone.info.deviceID), accessToken: again.accessToken)
            #expect(same.deviceID == phone.info.deviceID && same.current == true)
            #expect(try await server.api.devices(accessToken: laptop.session.accessToken).devices.count == 2, "no new device")

            try await server.api.revokeDevice(phone.info.deviceID, accessToken: laptop.session.accessToken)
            await #expect(performing: { try await server.api.devices(accessToken: again.accessToken) }, throws: Self.refused(.unauthorized, 401))
            await #expect(performing: { try await server.api.refresh(refreshToken: again.refreshToken) }, throws: Self.refused(.invalidRefreshToken, 401))
            // Naming a revoked device makes a new one.
            let third = try await server.api.login(email: user.email, password: user.password)
            let fresh = try await server.api.registerDevice(
                RegisterDeviceRequest(deviceName: "phone", platform: "linux", deviceID: phone.info.deviceID), accessToken: third.accessToken)
            #expect(fresh.deviceID != phone.info.deviceID)
        }
    }

    @Test func aDeviceCanRevokeItself() async throws {
        try await TestServer.with { server in
            let (phone, tokens) = try await server.newUser().signedInDevice("phone")
            try await server.api.revokeDevice(phone.info.deviceID, accessToken: phone.session.accessToken)
            await #expect(performing: { try await phone.allChanges() }, throws: Self.refused(.unauthorized, 401))
            await #expect(performing: { try await server.api.refresh(refreshToken: tokens.refreshToken) }, throws: Self.refused(.invalidRefreshToken, 401))
        }
    }

    @Test func anotherUsersDeviceCannotBeRenamedOrRevoked() async throws {
        try await TestServer.with { server in
            let (alice, bob) = (try await server.newUser(), try await server.newUser())
            let (phone, _) = try await alice.signedInDevice("alice's phone")
            let (bobs, _) = try await bob.signedInDevice("bob's laptop")
            await #expect(performing: { try await server.api.revokeDevice(phone.info.deviceID, accessToken: bobs.session.accessToken) }, throws: Self.refused(.notFound, 404))
            await #expect(performing: { try await server.api.renameDevice(phone.info.deviceID, to: "mine", accessToken: bobs.session.accessToken) }, throws: Self.refused(.notFound, 404))
            #expect(try await server.api.devices(accessToken: bobs.session.accessToken).devices.map(\.deviceName) == ["bob's laptop"])
            #expect(try await server.api.devices(accessToken: phone.session.accessToken).devices.map(\.deviceName) == ["alice's phone"])
            _ = try await phone.write("still.md", "works")
        }
    }

    @Test func renamingADevice() async throws {
        try await TestServer.with { server in
            let user = try await server.newUser()
            let (laptop, _) = try await user.signedInDevice("laptop")
            let (phone, _) = try await user.signedInDevice("phone")
            let renamed = try await server.api.renameDevice(phone.info.deviceID, to: "  old phone ", accessToken: laptop.session.accessToken)
            #expect(renamed.deviceName == "old phone" && renamed.current == false)
            #expect(Set(try await server.api.devices(accessToken: phone.session.accessToken).devices.map(\.deviceName)) == ["laptop", "old phone"])
            for bad in ["", "   ", String(repeating: "n", count: 201), "two\nlines"] {
                await #expect(performing: { try await server.api.renameDevice(phone.info.deviceID, to: bad, accessToken: laptop.session.accessToken) }, throws: Self.refused(.invalidRequest, 400))
            }
            await #expect(performing: { try await server.api.renameDevice(UUID(), to: "ghost", accessToken: laptop.session.accessToken) }, throws: Self.refused(.notFound, 404))
            #expect(Set(try await server.api.devices(accessToken: laptop.session.accessToken).devices.map(\.deviceName)) == ["laptop", "old phone"], "refused renames changed nothing")
        }
    }

    /// A logout ends the session: its access token is refused at once too, by every vault route
    /// (their session is checked where the request's vault is looked up), before its body is read,
    /// and also without a device header.
    @Test func aLogoutRefusesTheAccessTokenAtOnce() async throws {
        try await TestServer.with { server in
            let (phone, tokens) = try await server.newUser().signedInDevice("phone")
            let cursor = try await phone.allChanges().cursor!
            try await server.api.logout(refreshToken: tokens.refreshToken)
            await #expect(performing: { try await phone.allChanges() }, throws: Self.refused(.unauthorized, 401))
            let routes = [
                ("GET", "state"), ("GET", "history?path=a.md"), ("GET", "usage"), ("GET", "conflicts"), ("GET", "key"), ("GET", "export"),
                ("GET", "events?cursor=\(cursor)"), ("GET", "repair"), ("POST", "push"), ("POST", "push/confirm"), ("POST", "pull"), ("POST", "delete"),
                ("POST", "restore"), ("POST", "restore-deleted"), ("POST", "conflicts"), ("POST", "uploads"), ("PUT", "key"),
            ]
            for (method, route) in routes {
                for device in [[SyncHeader.device: phone.info.deviceID.uuidString], [:]] {
                    let answer = try await RawHTTP.send(
                        method, URL(string: server.baseURL.absoluteString + "/vault/" + route)!, body: method == "GET" ? nil : Data("{}".utf8),
                        headers: device.merging(["Authorization": "Bearer \(tokens.accessToken)"]) { a, _ in a })
                    #expect(answer.status == 401, "\(method) /vault/\(route) \(device.isEmpty ? "without" : "with") a device: \(String(decoding: answer.body, as: UTF8.self))")
                }
            }
        }
    }
}
