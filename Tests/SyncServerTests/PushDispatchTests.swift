import Foundation
import Postgres
import SyncClient
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// Silent pushes from a real server (real Postgres, real feed connections) to local providers
/// that check every request as Apple and Google document them.
@Suite struct PushDispatchTests {
    static let phoneToken = String(repeating: "0f", count: 32)

    private func withPushServer(_ body: (TestServer, LocalPushProviders) async throws -> Void) async throws {
        let clock = TestClock()  // the server's, which the providers check token times against
        try await LocalPushProviders.with(now: { clock.now }) { providers in
            let settings = providers.settings
            try await TestServer.with(configure: { $0.push = settings }, clock: clock) { server in
                try await body(server, providers)
                #expect(providers.refusals.isEmpty, "\(providers.refusals)")
            }
        }
    }

    /// Waits until `condition` holds (the server acts on its own time); false when it never did.
    private func eventually(_ seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// A change wakes the vault's other devices that have a push token, through their own
    /// provider, with the changed path; the author and devices without a token get nothing.
    @Test func devicesWithoutAFeedConnectionAreWokenThroughTheirProvider() async throws {
        try await withPushServer { server, providers in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await user.newDevice("phone", platform: "ios", pushToken: Self.phoneToken)
            _ = try await user.newDevice("tablet", platform: "android", pushToken: "fcm-tablet")
            _ = try await server.newUser().newDevice("stranger", platform: "ios", pushToken: String(repeating: "aa", count: 32))
            _ = try await laptop.write("notes/a.md", "one")
            let deliveries = try await providers.waitForDeliveries(2)
            #expect(Set(deliveries.map(\.token)) == [Self.phoneToken, "fcm-tablet"])
            #expect(Set(deliveries.map(\.provider)) == [.apns, .fcm])
            #expect(deliveries.allSatisfy { $0.notice.changedPaths == ["notes/a.md"] && $0.notice.vault == "default" && !$0.notice.more })
        }
    }

    /// A shared vault's change wakes its members' devices too, naming the vault by its id (the
    /// member may have a vault of the same name).
    @Test func aSharedVaultsChangeWakesItsMembersDevices() async throws {
        try await withPushServer { server, providers in
            let ana = try await server.newUser()
            let laptop = try await ana.newDevice("laptop")
            let bo = try await server.newUser()
            _ = try await bo.newDevice("Bo's phone", platform: "ios", pushToken: Self.phoneToken)
            let vault = try #require(try await server.api.vaults(accessToken: ana.tokens.accessToken).first).vaultID
            let invitation = try await server.api.invite(InviteRequest(email: bo.email, role: .reader), to: vault, accessToken: ana.tokens.accessToken)
            _ = try await server.api.acceptInvitation(invitation.invitationID, accessToken: bo.tokens.accessToken)
            _ = try await laptop.write("shared.md", "for Bo")
            let deliveries = try await providers.waitForDeliveries(1)
            #expect(deliveries.map(\.token) == [Self.phoneToken], "\(deliveries)")
            #expect(deliveries.first?.notice.vaultID == vault && deliveries.first?.notice.changedPaths == ["shared.md"], "\(deliveries)")
        }
    }

    /// A device listening on the feed hears the change there and gets no push; once its
    /// connection closes, the next change wakes it with a push.
    @Test func aConnectedDeviceIsNotPushedUntilItsConnectionCloses() async throws {
        try await withPushServer { server, providers in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone", platform: "ios", pushToken: Self.phoneToken)
            _ = try await user.newDevice("tablet", platform: "android", pushToken: "fcm-tablet")
            let feed = try await FeedRecorder.connect(phone.session, to: server.baseURL)
            _ = try await laptop.write("a.md", "one")
            #expect(try await feed.next().paths.map(\.rawValue) == ["a.md"])
            // The tablet's push comes from the same claim that passed the phone over.
            #expect(try await providers.waitForDeliveries(1).map(\.token) == ["fcm-tablet"])
            await feed.stop()
            let closed = try await eventually {
                try await Task.detached { [url = server.databaseURL] in
                    try PostgresConnection(connectionString: url).query(
                        "SELECT 1 FROM device_feeds WHERE device_id = $1 AND feed_seen_at IS NULL", [phone.info.deviceID]).first != nil
                }.value
            }
            #expect(closed, "the closed connection is recorded")
            _ = try await laptop.write("b.md", "two")
            let deliveries = try await providers.waitForDeliveries(2)
            #expect(deliveries.count == 2 && deliveries[1].token == Self.phoneToken && deliveries[1].notice.changedPaths == ["b.md"])
        }
    }

    /// Pushes to one device come at most once per interval: changes meanwhile wait and go in one
    /// trailing push, with all their paths, when the interval has passed on the server's clock.
    @Test func pushesToADeviceAreCoalesced() async throws {
        try await withPushServer { server, providers in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            _ = try await user.newDevice("phone", platform: "ios", pushToken: Self.phoneToken)
            _ = try await laptop.write("a.md", "one")
            #expect(try await providers.waitForDeliveries(1).count == 1)
            for name in ["b.md", "c.md", "d.md"] { _ = try await laptop.write(name, name) }
            try await Task.sleep(for: .seconds(2))  // several dispatcher rounds on the unmoved clock
            #expect(providers.deliveries.count == 1, "nothing more within the interval")
            server.clock.advance(by: 6)
            let deliveries = try await providers.waitForDeliveries(2)
            #expect(deliveries.count == 2 && Set(deliveries[1].notice.changedPaths) == ["b.md", "c.md", "d.md"])
            try await Task.sleep(for: .seconds(2))
            #expect(providers.deliveries.count == 2, "one trailing push for the three changes")
        }
    }

    /// A token the provider calls unregistered is removed from the device; no push goes to it again.
    @Test func aTokenTheProviderRefusesIsRemoved() async throws {
        try await withPushServer { server, providers in
            let user = try await server.newUser()
            let laptop = try await user.newDevice("laptop")
            let phone = try await user.newDevice("phone", platform: "ios", pushToken: Self.phoneToken)
            providers.unregister(Self.phoneToken)
            _ = try await laptop.write("a.md", "one")
            // Up to a minute of real time: under the whole suite on CI's two cores the dispatcher's
            // round took longer than 20 s once (the test ran 187 s).
            let removed = try await eventually(60) {
                try await server.api.devices(accessToken: user.tokens.accessToken).devices.first { $0.deviceID == phone.info.deviceID }?.pushProvider == nil
            }
            #expect(removed, "the device has no push token any more")
            // A new token registered by the app is used again.
            let renewed = String(repeating: "1e", count: 32)
            try await server.api.setPushToken(PushTokenRequest(provider: .apns, token: renewed), deviceID: phone.info.deviceID, accessToken: user.tokens.accessToken)
            server.clock.advance(by: 6)
            _ = try await laptop.write("b.md", "two")
            let delivered = try await providers.waitForDeliveries(1)
            #expect(delivered.map(\.token) == [renewed] && delivered.first?.notice.changedPaths == ["b.md"])
        }
    }

    /// With two instances on one database, each hears every change and exactly one sends the push.
    @Test func twoInstancesSendOnePush() async throws {
        let clock = TestClock()
        try await LocalPushProviders.with(now: { clock.now }) { providers in
            let settings = providers.settings
            // One clock for both instances, as real instances share the wall clock.
            try await TestServer.withTwoInstances(configure: { $0.push = settings }, clock: clock) { first, second in
                let user = try await first.newUser()
                let laptop = try await user.newDevice("laptop")
                _ = try await user.newDevice("phone", platform: "ios", pushToken: Self.phoneToken)
                _ = try await laptop.through(second).write("a.md", "one")
                _ = try await laptop.write("b.md", "two")
                #expect(try await providers.waitForDeliveries(1).count >= 1)
                try await Task.sleep(for: .seconds(3))  // both instances have acted on both changes
                // Both changes within the interval: one push (the second change, if its push
                // came after the first's, waits for the interval on the unmoved clocks).
                #expect(providers.deliveries.count == 1, "one push, not one per instance: \(providers.deliveries)")
                #expect(providers.refusals.isEmpty, "\(providers.refusals)")
            }
        }
    }

    /// Push tokens are checked, and a user reaches only their own devices.
    @Test func pushTokenRequestsAreChecked() async throws {
        try await TestServer.with { server in
            let (alice, bob) = (try await server.newUser(), try await server.newUser())
            let phone = try await alice.newDevice("phone", platform: "ios", pushToken: Self.phoneToken)
            #expect(try await server.api.devices(accessToken: alice.tokens.accessToken).devices.first?.pushProvider == .apns)
            await #expect { try await alice.newDevice("pi", platform: "linux", pushToken: "t") } throws: {
                ($0 as? SyncAPIError)?.code == .invalidRequest && "\($0)".contains("push_provider")
            }
            await #expect { try await server.api.setPushToken(PushTokenRequest(provider: .apns, token: "has space"), deviceID: phone.info.deviceID, accessToken: alice.tokens.accessToken) } throws: {
                ($0 as? SyncAPIError)?.code == .invalidRequest
            }
            await #expect { try await server.api.setPushToken(PushTokenRequest(provider: .fcm, token: "bobs"), deviceID: phone.info.deviceID, accessToken: bob.tokens.accessToken) } throws: {
                ($0 as? SyncAPIError)?.code == .notFound
            }
            #expect(try await server.api.devices(accessToken: alice.tokens.accessToken).devices.first?.pushProvider == .apns, "bob changed nothing")
            try await server.api.setPushToken(nil, deviceID: phone.info.deviceID, accessToken: alice.tokens.accessToken)
            #expect(try await server.api.devices(accessToken: alice.tokens.accessToken).devices.first?.pushProvider == nil)
        }
    }
}
