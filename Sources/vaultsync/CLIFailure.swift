import Foundation
import SyncClient
import SyncProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failure of a whole command, as the user meets it: one line and a documented exit code
/// (1 a failure, 3 the server is unreachable, 4 sign in again, 5 the vault was deleted). The one
/// place errors become exit codes.
struct CLIFailure {
    let message: String
    let exitCode: Int32

    /// Nil for errors ArgumentParser reports itself (usage and validation errors).
    init?(_ error: any Error) {
        switch error {
        case let error as AdvisedFailure:
            guard let inner = CLIFailure(error.cause) else { return nil }
            self.init(message: "\(inner.message); \(error.advice)", exitCode: inner.exitCode)
        case let error as SyncEngineError:
            switch error {
            case .signedOut: self.init(message: error.description, exitCode: 4)
            case .vaultDeleted, .membershipEnded: self.init(message: error.description, exitCode: 5)
            default: self.init(message: error.description, exitCode: 1)
            }
        case let error as SyncAPIError where error.code == .vaultDeleted:
            self.init(message: "this folder's vault was deleted on the server (\(error.serverMessage)); nothing here was deleted", exitCode: 5)
        case let error as SyncAPIError where error.code == .membershipEnded:
            self.init(message: "this folder's vault is no longer shared with you (\(error.serverMessage)); nothing here was deleted", exitCode: 5)
        case let error as WatchError:
            if case .sessionRefused = error {
                self.init(message: error.description, exitCode: 4)
            } else {
                self.init(message: error.description, exitCode: 1)
            }
        case let error as SyncAPIError where error.isSessionRefused:
            self.init(message: "the server no longer accepts this device's session (\(error.serverMessage)): run 'vaultsync login'", exitCode: 4)
        case let error as URLError where error.code == .cannotFindHost:
            // Not "try again later": a name that does not resolve is most often mistyped.
            let name = (error.userInfo[NSLocalizedDescriptionKey] as? String).map { " (\($0))" } ?? ""
            self.init(message: "cannot reach the server: its name does not resolve\(name); check the server's address, or the network", exitCode: 1)
        case let error where Unreachable.matches(error):
            self.init(message: "\(Unreachable.describe(error)); try again later", exitCode: 3)
        case let error as URLError:
            self.init(message: "the server's address or identity is not usable: \(error.localizedDescription)", exitCode: 1)
        default:
            guard Self.isOurs(error) else { return nil }
            self.init(message: "\(error)", exitCode: 1)
        }
    }

    /// The failure as one JSON object on standard output (for `--json`).
    func printJSON() {
        struct Output: Encodable {
            let error: String
            let exitCode: Int32
            enum CodingKeys: String, CodingKey {
                case error
                case exitCode = "exit_code"
            }
        }
        guard let data = try? WireCoding.encoder().encode(Output(error: message, exitCode: exitCode)) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// A failure no case above explains, as exit 1 with `message`.
    init(unexplained message: String) {
        self.init(message: message, exitCode: 1)
    }

    /// An error for people: a file system's in its own words, others as they describe themselves.
    static func describe(_ error: any Error) -> String {
        let system = error as NSError
        if error is CocoaError || error is POSIXError || system.domain == NSCocoaErrorDomain || system.domain == NSPOSIXErrorDomain {
            let text = system.localizedDescription
            guard let file = system.userInfo[NSFilePathErrorKey] as? String, !text.contains(file) else { return text }
            return "\(file): \(text)"
        }
        return "\(error)"
    }

    private init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Errors of VaultSync's own modules describe themselves for people.
    private static func isOurs(_ error: any Error) -> Bool {
        error is SyncAPIError || error is DeviceChoiceError || error is CLIRefusal || error is VaultLockError || error is StateStoreError || error is ExportError || error is ExportArchiveError
    }
}

/// A failure with what else the user can do, said after its own message (same exit code).
struct AdvisedFailure: Error {
    let cause: any Error
    let advice: String
}
