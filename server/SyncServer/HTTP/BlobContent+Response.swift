import Hummingbird
import NIOCore

extension BlobContent {
    /// The first `length` bytes of the content as a response body, streamed chunk by chunk from
    /// the store: memory stays flat for any size and any number of readers at once.
    func responseBody(length: Int64) -> ResponseBody {
        let chunks = chunks
        return ResponseBody(contentLength: Int(length)) { writer in
            var remaining = length
            for try await chunk in chunks where remaining > 0 {
                var chunk = chunk
                if Int64(chunk.readableBytes) > remaining { chunk = chunk.getSlice(at: chunk.readerIndex, length: Int(remaining)) ?? chunk }
                remaining -= Int64(chunk.readableBytes)
                try await writer.write(chunk)
            }
            try await writer.finish(nil)
        }
    }
}
