public import Foundation

/// The name a device gets when the user gives none: the host's, with a short suffix of its own,
/// so that several devices on hosts of one name (four virtual machines called `vm`) tell apart
/// in `devices`, history and the web app.
public enum DeviceName {
    /// `host` and four random letters or digits: `vm-k7q2`.
    public static func byDefault(host: String = ProcessInfo.processInfo.hostName) -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        let suffix = String((0..<4).map { _ in alphabet[Int.random(in: 0..<alphabet.count)] })
        let name = host.trimmingCharacters(in: .whitespacesAndNewlines)
        return (name.isEmpty ? "device" : String(name.prefix(180))) + "-" + suffix
    }
}
