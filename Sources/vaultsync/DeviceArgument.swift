import ArgumentParser
import Foundation
import SyncClient
import SyncProtocol

/// Which device a command-line argument names.
enum DeviceChoice {
    /// The device whose id is `text` or starts with it (4 characters at least), or whose name is
    /// `text` (ignoring case); exactly one must match.
    /// - Throws: ``DeviceChoiceError``.
    static func pick(_ text: String, from devices: [DeviceInfo]) throws -> DeviceInfo {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let exact = devices.first(where: { $0.deviceID.uuidString.lowercased() == wanted }) { return exact }
        let byID = wanted.count >= 4 ? devices.filter { $0.deviceID.uuidString.lowercased().hasPrefix(wanted) } : []
        let byName = devices.filter { $0.deviceName.lowercased() == wanted }
        let matches = byID + byName.filter { named in !byID.contains { $0.deviceID == named.deviceID } }
        guard matches.count == 1 else {
            throw matches.isEmpty ? DeviceChoiceError.none(text, known: devices) : DeviceChoiceError.ambiguous(text, matches: matches)
        }
        return matches[0]
    }
}

/// A device argument that names no device, or several.
enum DeviceChoiceError: Error, CustomStringConvertible {
    case none(String, known: [DeviceInfo])
    case ambiguous(String, matches: [DeviceInfo])

    var description: String {
        func listed(_ devices: [DeviceInfo]) -> String {
            devices.map { "\($0.deviceName) (\($0.deviceID.uuidString.lowercased().prefix(8)))" }.joined(separator: ", ")
        }
        switch self {
        case .none(let text, let known):
            return "no device of this account is named or has an id starting with '\(text)'; its devices: \(known.isEmpty ? "none" : listed(known))"
        case .ambiguous(let text, let matches):
            return "'\(text)' names \(matches.count) devices: \(listed(matches)); give more of the id"
        }
    }
}
