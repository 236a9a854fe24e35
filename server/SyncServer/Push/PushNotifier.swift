import Foundation
import SyncProtocol

/// Sends silent "your vault changed" pushes through one provider (APNs, FCM). The real
/// implementations speak the providers' HTTP APIs; tests point them at a local HTTP/2 server that
/// checks each request as the provider documents it.
protocol PushNotifier: Sendable {
    var provider: PushProvider { get }
    /// Sends `notice` to the device holding `token`. Never throws: what happened is the outcome.
    func send(_ notice: VaultChangedNotice, to token: String) async -> PushOutcome
}

/// What became of one push.
enum PushOutcome: Equatable, Sendable {
    case sent
    /// The provider says the token is no longer valid: it is removed from the device.
    case tokenInvalid(String)
    /// Anything else (network, provider error, configuration); logged, not retried.
    case failed(String)
}

/// One request's answer from a provider: final, or a refusal of the server's own credentials
/// (renew them and try once more).
enum ProviderAnswer {
    case final(PushOutcome)
    case credentialsRefused(String)

    var outcome: PushOutcome {
        switch self {
        case .final(let outcome): outcome
        case .credentialsRefused(let reason): .failed(reason)
        }
    }
}

extension VaultChangedNotice {
    /// Provider payloads are limited to 4 KiB; the paths stop well before that.
    static let pathBytesCap = 2500

    /// The notice for a push, with paths capped by count and bytes.
    init(vault: String, vaultID: UUID, paths: [String], more: Bool, serverTime: Date) {
        var listed: [String] = []
        var bytes = 0
        for path in paths.prefix(VaultEvent.pathCap) {
            bytes += path.utf8.count + 3
            guard bytes <= Self.pathBytesCap else { break }
            listed.append(path)
        }
        self.init(vault: vault, vaultID: vaultID, changedPaths: listed, more: more || listed.count < paths.count, serverTime: serverTime)
    }
}
