import AsyncHTTPClient
import Foundation
import Logging
import SyncProtocol
@testable import SyncServer
import TestSupport
import Testing

/// The real APNs and FCM clients against local providers that check each request as Apple's and
/// Google's documentation specifies (see ``LocalPushProviders``).
@Suite struct PushNotifierTests {
    static let apnsToken = String(repeating: "ab", count: 32)
    static let notice = VaultChangedNotice(vault: "default", changedPaths: ["notes/a.md"], more: false, serverTime: Date(timeIntervalSince1970: 1_800_000_000))

    private func withProviders(_ body: (LocalPushProviders, HTTPClient, TestClock) async throws -> Void) async throws {
        let clock = TestClock()
        try await LocalPushProviders.with(now: { clock.now }) { providers in
            let client = providers.settings.makeHTTPClient()
            do {
                try await body(providers, client, clock)
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    /// A background push Apple accepts, over HTTP/2, with a provider token reused for 50 minutes
    /// and then signed anew (Apple refuses tokens older than an hour).
    @Test func apnsSendsABackgroundPushAndRenewsItsProviderToken() async throws {
        try await withProviders { providers, client, clock in
            let apns = try await APNsNotifier(settings: providers.settings.apns!, client: client, now: { clock.now }, logger: TestCluster.quietLogger)
            #expect(await apns.send(Self.notice, to: Self.apnsToken) == .sent)
            #expect(providers.deliveries == [.init(provider: .apns, token: Self.apnsToken, notice: Self.notice)])
            clock.advance(by: 49 * 60)
            #expect(await apns.send(Self.notice, to: Self.apnsToken) == .sent)
            #expect(providers.providerTokensSeen == 1, "one provider token for 50 minutes")
            clock.advance(by: 2 * 60)
            #expect(await apns.send(Self.notice, to: Self.apnsToken) == .sent)
            #expect(providers.providerTokensSeen == 2)
            #expect(providers.refusals.isEmpty, "\(providers.refusals)")
        }
    }

    /// A provider token Apple refuses is signed anew once; a token Apple calls unregistered is
    /// reported invalid; a malformed one never leaves the server.
    @Test func apnsRenewsARefusedProviderTokenAndReportsDeadDeviceTokens() async throws {
        try await withProviders { providers, client, clock in
            let apns = try await APNsNotifier(settings: providers.settings.apns!, client: client, now: { clock.now }, logger: TestCluster.quietLogger)
            providers.refuseCredentialsOnce()
            clock.advance(by: 1)  // a new token differs from the refused one
            #expect(await apns.send(Self.notice, to: Self.apnsToken) == .sent)
            #expect(providers.providerTokensSeen == 2 && providers.deliveries.count == 1)
            providers.unregister(Self.apnsToken)
            guard case .tokenInvalid = await apns.send(Self.notice, to: Self.apnsToken) else { Issue.record("410 is an invalid token"); return }
            guard case .tokenInvalid = await apns.send(Self.notice, to: "not-hex") else { Issue.record("a non-hex token is invalid"); return }
            #expect(providers.refusals.isEmpty, "\(providers.refusals)")
        }
    }

    /// A data message Google accepts, with an access token from the service account's JWT grant,
    /// kept while valid, renewed when refused; UNREGISTERED reads as an invalid token.
    @Test func fcmSendsADataMessageWithAServiceAccountGrant() async throws {
        try await withProviders { providers, client, clock in
            let fcm = try await FCMNotifier(settings: providers.settings.fcm!, client: client, now: { clock.now })
            #expect(await fcm.send(Self.notice, to: "fcm-token-1") == .sent)
            #expect(await fcm.send(Self.notice, to: "fcm-token-1") == .sent)
            #expect(providers.grants == 1, "one access token while it is valid")
            #expect(providers.deliveries == Array(repeating: .init(provider: .fcm, token: "fcm-token-1", notice: Self.notice), count: 2))
            providers.refuseCredentialsOnce()
            #expect(await fcm.send(Self.notice, to: "fcm-token-1") == .sent)
            #expect(providers.grants == 2)
            clock.advance(by: 3600)
            #expect(await fcm.send(Self.notice, to: "fcm-token-1") == .sent)
            #expect(providers.grants == 3, "renewed before it expires")
            providers.unregister("fcm-token-1")
            guard case .tokenInvalid = await fcm.send(Self.notice, to: "fcm-token-1") else { Issue.record("UNREGISTERED is an invalid token"); return }
            #expect(providers.refusals.isEmpty, "\(providers.refusals)")
        }
    }

    /// However many paths changed, the payload stays within the providers' 4 KiB.
    @Test func longPathListsAreCappedToFitThePayload() async throws {
        try await withProviders { providers, client, clock in
            let paths = (0..<300).map { "folder-\(String(repeating: "x", count: 150))/note-\($0).md" }
            let notice = VaultChangedNotice(vault: "default", vaultID: UUID(), paths: paths, more: false, serverTime: clock.now)
            #expect(notice.more && notice.changedPaths.count < paths.count && !notice.changedPaths.isEmpty)
            let apns = try await APNsNotifier(settings: providers.settings.apns!, client: client, now: { clock.now }, logger: TestCluster.quietLogger)
            let fcm = try await FCMNotifier(settings: providers.settings.fcm!, client: client, now: { clock.now })
            #expect(await apns.send(notice, to: Self.apnsToken) == .sent)
            #expect(await fcm.send(notice, to: "t") == .sent)
            #expect(providers.refusals.isEmpty, "\(providers.refusals)")
        }
    }

    /// A configuration that cannot work stops the server at start with the reason.
    @Test func unusableKeysAreRefusedAtStart() async throws {
        try await withProviders { providers, client, clock in
            var apns = providers.settings.apns!
            apns.keyFile = providers.serviceAccountFile  // JSON, not a P-256 key
            await #expect { try await APNsNotifier(settings: apns, client: client, now: { clock.now }, logger: TestCluster.quietLogger) } throws: {
                "\($0)".contains("not an EC P-256 private key")
            }
            apns.keyFile = URL(fileURLWithPath: "/nonexistent/AuthKey.p8")
            await #expect { try await APNsNotifier(settings: apns, client: client, now: { clock.now }, logger: TestCluster.quietLogger) } throws: {
                "\($0)".contains("cannot read the APNs key file /nonexistent/AuthKey.p8")
            }
            var fcm = providers.settings.fcm!
            fcm.serviceAccountFile = providers.apnsKeyFile
            await #expect { try await FCMNotifier(settings: fcm, client: client, now: { clock.now }) } throws: { "\($0)".contains("lacks project_id") }
        }
    }
}
