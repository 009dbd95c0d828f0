import Testing
import ScrollcastRooms

/// `multipart/form-data` as browsers send it, and every way a body can be malformed.
@Suite("Multipart form data")
struct MultipartFormTests {
    private func body(_ text: String) -> [UInt8] { Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8) }

    @Test func theBoundaryComesFromAFormDataContentTypeOnly() {
        #expect(MultipartForm.boundary(ofContentType: "multipart/form-data; boundary=----WebKitFormBoundaryX1") == "----WebKitFormBoundaryX1")
        #expect(MultipartForm.boundary(ofContentType: "Multipart/Form-Data; charset=utf-8; BOUNDARY=\"a b\"") == "a b")
        #expect(MultipartForm.boundary(ofContentType: "application/json") == nil)
        #expect(MultipartForm.boundary(ofContentType: "multipart/mixed; boundary=x") == nil)
        #expect(MultipartForm.boundary(ofContentType: "multipart/form-data") == nil)
        #expect(MultipartForm.boundary(ofContentType: "multipart/form-data; boundary=" + String(repeating: "b", count: 71)) == nil)
        #expect(MultipartForm.boundary(ofContentType: "multipart/form-data; boundary=") == nil)
    }

    @Test func filesComeWithTheirNamesTypesAndExactBytes() throws {
        // Content holding CRLF, "--" and the boundary without its leading CRLF stays whole (with
        // it, it would be a delimiter: RFC 2046 has the sender choose a boundary its content lacks).
        var bytes = body("""
            preamble to ignore
            --XyZ
            Content-Disposition: form-data; name="scene"; filename="my \\"own\\".json"
            Content-Type: application/json

            {"a":
             "--XyZ"}
            --XyZ
            content-disposition: form-data; name=image; filename=a.png

            """) + [13, 10]
        bytes += [0x89, 0x50, 0x0D, 0x0A, 0x2D, 0x2D, 0x00, 0xFF]
        bytes += body("\n--XyZ--\nepilogue")
        let form = try MultipartForm(body: bytes, boundary: "XyZ")
        #expect(form.parts.count == 2)
        #expect(form.parts[0] == MultipartForm.Part(name: "scene", fileName: "my \"own\".json", contentType: "application/json",
                                                    bytes: body("{\"a\":\n \"--XyZ\"}")))
        #expect(form.parts[1] == MultipartForm.Part(name: "image", fileName: "a.png", contentType: nil,
                                                    bytes: [0x89, 0x50, 0x0D, 0x0A, 0x2D, 0x2D, 0x00, 0xFF]))
    }

    @Test func anEmptyFormHasNoParts() throws {
        #expect(try MultipartForm(body: body("--b--\n"), boundary: "b").parts.isEmpty)
    }

    @Test(arguments: [
        ("", "no part starts with the boundary"),
        ("--b\nContent-Disposition: form-data; name=\"x\"\n\nnever ends", "the body ends inside a part (no closing boundary)"),
        ("--bjunk\n", "a boundary is not followed by a line break"),
        ("--b\nContent-Disposition: form-data; name=\"x\"", "a part's headers do not end within 4096 bytes"),
        ("--b\nContent-Type: text/plain\n\nx\n--b--", "a part has no Content-Disposition name"),
        ("--b\nContent-Disposition: attachment; name=\"x\"\n\nx\n--b--", "a part is not form-data"),
        ("--b\nContent-Disposition: form-data; name=\"x\n\nx\n--b--", "a part's Content-Disposition cannot be read"),
        ("--b\nno colon here\n\nx\n--b--", "a part's header line has no ':'"),
    ])
    func malformedBodiesAreRefusedWithTheReason(text: String, reason: String) {
        #expect(throws: MultipartForm.Malformed(reason)) { try MultipartForm(body: body(text), boundary: "b") }
    }

    @Test func headersAndPartsAreBounded() {
        let longHeader = "--b\nContent-Disposition: form-data; name=\"x\"\nX-Pad: " + String(repeating: "p", count: 5000) + "\n\nx\n--b--"
        #expect(throws: MultipartForm.Malformed("a part's headers do not end within 4096 bytes")) {
            try MultipartForm(body: body(longHeader), boundary: "b")
        }
        let many = String(repeating: "--b\nContent-Disposition: form-data; name=\"x\"\n\nx\n", count: MultipartForm.maxParts + 1) + "--b--"
        #expect(throws: MultipartForm.Malformed("more than 64 parts")) { try MultipartForm(body: body(many), boundary: "b") }
        let enough = String(repeating: "--b\nContent-Disposition: form-data; name=\"x\"\n\nx\n", count: MultipartForm.maxParts) + "--b--"
        #expect((try? MultipartForm(body: body(enough), boundary: "b"))?.parts.count == MultipartForm.maxParts)
    }
}
