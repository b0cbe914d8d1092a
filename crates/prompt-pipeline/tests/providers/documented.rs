//! Each provider's request body as its public API reference documents it,
//! written independently of the crate's own types, strict about unknown
//! fields. A body that deserializes here has the documented shape.

use prompt_pipeline::Request;
use serde::Deserialize;
use serde_json::Value;

/// `body` as JSON, after checking (failing the test otherwise) that it has
/// its provider's documented shape.
pub(crate) fn checked(body: &Request) -> Value {
    let json = serde_json::to_value(body).unwrap();
    match body {
        Request::OpenAi(_) => openai(&json),
        Request::Anthropic(_) => anthropic(&json),
        Request::Gemini(_) => gemini(&json),
    }
    json
}

/// Panics (failing the test) unless `body` has OpenAI's documented shape.
pub(crate) fn openai(body: &Value) {
    #[derive(Deserialize)]
    struct Request {
        #[allow(dead_code)]
        model: Option<String>,
        messages: Vec<Msg>,
        temperature: Option<f64>,
        top_p: Option<f64>,
        max_tokens: Option<u64>,
        #[allow(dead_code)]
        stop: Option<Vec<String>>,
        #[allow(dead_code)]
        seed: Option<i64>,
        #[allow(dead_code)]
        presence_penalty: Option<f64>,
        #[allow(dead_code)]
        frequency_penalty: Option<f64>,
        #[serde(flatten)]
        #[allow(dead_code)]
        extra: serde_json::Map<String, Value>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Msg {
        role: String,
        content: Content,
        #[allow(dead_code)]
        name: Option<String>,
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Content {
        Text(#[allow(dead_code)] String),
        Parts(Vec<Part>),
    }
    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    enum Part {
        Text {
            #[allow(dead_code)]
            text: String,
        },
        ImageUrl {
            image_url: Url,
        },
        File {
            file: File,
        },
        InputAudio {
            input_audio: Audio,
        },
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Url {
        url: String,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        #[allow(dead_code)]
        filename: String,
        file_data: String,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Audio {
        #[allow(dead_code)]
        data: String,
        format: String,
    }
    let request: Request = serde_json::from_value(body.clone()).expect("OpenAI shape");
    assert!(request.temperature.is_none_or(|t| (0.0..=2.0).contains(&t)));
    assert!(request.top_p.is_none_or(|t| (0.0..=1.0).contains(&t)));
    assert!(request.max_tokens.is_none_or(|t| t > 0));
    for msg in request.messages {
        assert!(["system", "developer", "user", "assistant", "tool"].contains(&msg.role.as_str()));
        if let Content::Parts(parts) = msg.content {
            for part in parts {
                match part {
                    Part::ImageUrl { image_url } => {
                        assert!(image_url.url.starts_with("data:image/"))
                    }
                    Part::File { file } => {
                        assert!(file.file_data.starts_with("data:application/pdf;base64,"))
                    }
                    Part::InputAudio { input_audio } => {
                        assert!(["wav", "mp3"].contains(&input_audio.format.as_str()))
                    }
                    Part::Text { .. } => {}
                }
            }
        }
    }
}

/// Panics unless `body` has Anthropic's documented Messages shape.
pub(crate) fn anthropic(body: &Value) {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Request {
        model: Option<String>,
        max_tokens: u64,
        system: Option<Value>,
        messages: Vec<Msg>,
        temperature: Option<f64>,
        top_p: Option<f64>,
        top_k: Option<u64>,
        stop_sequences: Option<Vec<String>>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Msg {
        role: String,
        content: Vec<Block>,
    }
    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    #[allow(dead_code)]
    enum Block {
        Text { text: String },
        Image { source: Source },
        Document { source: Source, title: Option<String> },
    }
    #[derive(Deserialize)]
    #[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
    #[allow(dead_code)]
    enum Source {
        Base64 { media_type: String, data: String },
        Text { media_type: String, data: String },
    }
    let request: Request = serde_json::from_value(body.clone()).expect("Anthropic shape");
    assert!(request.temperature.is_none_or(|t| (0.0..=1.0).contains(&t)));
    // Alternating, starting with the user.
    for (i, msg) in request.messages.iter().enumerate() {
        assert_eq!(msg.role, if i % 2 == 0 { "user" } else { "assistant" });
        assert!(!msg.content.is_empty());
    }
    if let Some(system) = request.system {
        assert!(system.is_string() || system.is_array());
    }
}

/// Panics unless `body` has Gemini's documented `generateContent` shape.
pub(crate) fn gemini(body: &Value) {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Request {
        contents: Vec<Content>,
        #[serde(rename = "systemInstruction")]
        system_instruction: Option<Content>,
        #[serde(rename = "generationConfig")]
        #[allow(dead_code)]
        generation_config: Option<Config>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Content {
        role: Option<String>,
        parts: Vec<Part>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Part {
        text: Option<String>,
        inline_data: Option<Blob>,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Blob {
        mime_type: String,
        data: String,
    }
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Config {
        temperature: Option<f64>,
        top_p: Option<f64>,
        top_k: Option<u64>,
        max_output_tokens: Option<u64>,
        stop_sequences: Option<Vec<String>>,
        seed: Option<i64>,
        presence_penalty: Option<f64>,
        frequency_penalty: Option<f64>,
        candidate_count: Option<u64>,
    }
    let request: Request = serde_json::from_value(body.clone()).expect("Gemini shape");
    for (i, content) in request.contents.iter().enumerate() {
        assert_eq!(content.role.as_deref(), Some(if i % 2 == 0 { "user" } else { "model" }));
        for part in &content.parts {
            assert!(part.text.is_some() != part.inline_data.is_some(), "one field per part");
        }
    }
    if let Some(system) = request.system_instruction {
        assert!(system.role.is_none());
    }
}
