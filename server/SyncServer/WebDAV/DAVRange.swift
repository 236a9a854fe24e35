import Foundation

/// A `Range` header's one range (RFC 9110 §14.1.2): `bytes=A-B`, `bytes=A-`, `bytes=-N`. Pure.
/// Several ranges are answered with the whole file, as the RFC allows.
enum DAVRange {
    enum Outcome: Equatable {
        /// Serve the whole file.
        case whole
        case part(offset: Int64, length: Int64)
        /// `416`: no byte of the range is in the file.
        case unsatisfiable
    }

    static func resolve(_ header: String?, size: Int64) -> Outcome {
        guard let header, header.lowercased().hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else { return .whole }
        switch (Int64(parts[0]), Int64(parts[1])) {
        case (let start?, let end?) where start <= end:
            guard start < size else { return .unsatisfiable }
            return .part(offset: start, length: min(end, size - 1) - start + 1)
        case (let start?, nil) where parts[1].isEmpty:
            guard start < size else { return .unsatisfiable }
            return .part(offset: start, length: size - start)
        case (nil, let suffix?) where parts[0].isEmpty:
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .part(offset: max(0, size - suffix), length: min(suffix, size))
        default:
            return .whole
        }
    }
}
