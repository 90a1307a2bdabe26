/**
 * Child process of bench:media: the publisher and the two latency probes, all @roamhq/wrtc (libwebrtc) in one process
 * so send and receive times come from one clock. The publisher sends synthetic VP8 (a band of noise, a moving bar and
 * the frame number drawn as 16 black or white blocks), capped at BENCH_BITRATE, and Opus through the service over
 * WHIP. The same video track also feeds a second, direct peer connection to an in-process viewer (no relay: the
 * reference path), while another in-process viewer plays the video through the service over WHEP. Both decode and
 * read the frame number back, so the relay-added latency is (send → decode through the relay) − (send → decode
 * direct), in one run.
 */
import wrtc, { MediaStreamTrack } from '@roamhq/wrtc';
import { gatheredOffer, signal } from '../../test/support/webrtc-client';

const { RTCPeerConnection } = wrtc;
const { RTCVideoSource, RTCVideoSink, RTCAudioSource } = wrtc.nonstandard;

const BLOCKS = 16;

/** Reads the frame number `start` draws back from a decoded I420 frame (luma first), at whatever size the encoder chose. */
function frameNumber(frame: { width: number; height: number; data: Uint8Array }): number {
  let n = 0;
  const y = Math.floor(frame.height / 30);
  for (let i = 0; i < BLOCKS; i++) if (frame.data[y * frame.width + Math.floor(((i + 0.3) * frame.width) / BLOCKS)] > 128) n |= 1 << i;
  return n;
}

class Probe {
  readonly pc = new RTCPeerConnection();
  latencies: number[] = [];
  frames = 0;
  private sink: { stop(): void } | null = null;

  constructor(sentAt: Map<number, number>, offers: boolean) {
    if (offers) {
      this.pc.addTransceiver('video', { direction: 'recvonly' });
    }
    this.pc.addEventListener('track', (e: { track: MediaStreamTrack }) => {
      if (e.track.kind !== 'video') return;
      const sink = new RTCVideoSink(e.track);
      sink.onframe = ({ frame }: { frame: { width: number; height: number; data: Uint8Array } }) => {
        const at = performance.now();
        const sent = sentAt.get(frameNumber(frame));
        this.frames++;
        if (sent !== undefined && at - sent < 5000) this.latencies.push(at - sent);
      };
      this.sink = sink;
    });
  }

  close(): void {
    this.sink?.stop();
    this.pc.close();
  }
}

const sentAt = new Map<number, number>();
const video = new RTCVideoSource();
const audio = new RTCAudioSource();
const videoTrack = video.createTrack();
const publisher = new RTCPeerConnection();
publisher.addTransceiver(videoTrack, { direction: 'sendonly' });
publisher.addTransceiver(audio.createTrack(), { direction: 'sendonly' });
// Video only on both probes: the figure is the packets' path, without a player's audio/video synchronisation on top.
const direct = new RTCPeerConnection();
direct.addTransceiver(videoTrack, { direction: 'sendonly' });
const directProbe = new Probe(sentAt, false);
let relayProbe: Probe | null = null;
let frame = 0;
let framesSent = 0;

function start(width: number, height: number, fps: number): void {
  // A band of noise (a tenth of the rows) that changes every frame, cycling through a few patterns: enough detail for
  // the encoder to fill its cap (BENCH_BITRATE) at the full frame rate, as a camera's picture would.
  const luma = width * height;
  const band = Math.floor(height / 10) * width;
  const backgrounds = Array.from({ length: 8 }, () => Uint8Array.from({ length: band }, () => 64 + ((Math.random() * 128) | 0)));
  const data = new Uint8Array((luma * 3) / 2).fill(128);
  const blockW = Math.floor(width / BLOCKS / 2);
  const blockH = Math.floor(height / 15);
  setInterval(() => {
    const n = ++frame & 0xffff;
    data.fill(128, 0, luma);
    data.set(backgrounds[frame % backgrounds.length], Math.floor(height / 2) * width);
    const bar = (frame * 4) % width;
    for (let y = 0; y < height; y++) data.fill(235, y * width + bar, y * width + Math.min(width, bar + 16));
    for (let i = 0; i < BLOCKS; i++) {
      const x0 = Math.floor((i * width) / BLOCKS);
      for (let y = 0; y < blockH; y++) data.fill(n & (1 << i) ? 255 : 0, y * width + x0, y * width + x0 + blockW);
    }
    sentAt.set(n, performance.now());
    framesSent++;
    video.onFrame({ width, height, data });
  }, 1000 / fps);
  const samples = new Int16Array(480);
  let t = 0;
  setInterval(() => {
    for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * t++) / 48000));
    audio.onData({ samples, sampleRate: 48000, bitsPerSample: 16, channelCount: 1, numberOfFrames: 480 });
  }, 10);
}

/** Caps the video the receiving side accepts (b=AS in its description), which caps the sender's encoder. */
function capBitrate(sdp: string, bps: number): string {
  return sdp.replace(/(m=video[^]*?\r\nc=[^\r]*\r\n)/, `$1b=AS:${Math.round(bps / 1000)}\r\n`);
}

type OutboundStats = {
  type: string;
  kind?: string;
  mediaType?: string;
  framesEncoded?: number;
  bytesSent?: number;
  keyFramesEncoded?: number;
  pliCount?: number;
};

async function outboundVideo(): Promise<{ framesEncoded: number; bytesSent: number; keyFramesEncoded: number; pliCount: number }> {
  const out = { framesEncoded: 0, bytesSent: 0, keyFramesEncoded: 0, pliCount: 0 };
  (await publisher.getStats()).forEach((s: OutboundStats) => {
    if (s.type === 'outbound-rtp' && (s.kind ?? s.mediaType) === 'video') {
      out.framesEncoded += s.framesEncoded ?? 0;
      out.bytesSent += s.bytesSent ?? 0;
      out.keyFramesEncoded += s.keyFramesEncoded ?? 0;
      out.pliCount += s.pliCount ?? 0;
    }
  });
  return out;
}

type Msg =
  | { id: number; kind: 'publish'; whip: string; token: string; width: number; height: number; fps: number; bitrate: number }
  | { id: number; kind: 'probe'; whep: string }
  | { id: number; kind: 'sample' };

process.on('message', (msg: Msg) => {
  void (async () => {
    if (msg.kind === 'publish') {
      const res = await signal(msg.whip, await gatheredOffer(publisher), msg.token);
      if (res.status !== 201) throw new Error(`WHIP answered ${res.status}: ${res.body}`);
      await publisher.setRemoteDescription({ type: 'answer', sdp: capBitrate(res.body, msg.bitrate) });
      // The sending side offers: an answerer would not reuse a transceiver made by addTransceiver (JSEP).
      await directProbe.pc.setRemoteDescription({ type: 'offer', sdp: await gatheredOffer(direct) });
      await directProbe.pc.setLocalDescription(await directProbe.pc.createAnswer());
      await direct.setRemoteDescription({ type: 'answer', sdp: capBitrate(directProbe.pc.localDescription!.sdp, msg.bitrate) });
      start(msg.width, msg.height, msg.fps);
      return process.send!({ id: msg.id });
    }
    if (msg.kind === 'probe') {
      // A fresh relay probe per step: it joins last, so it sits at the end of the relay's fan-out (its worst place).
      relayProbe?.close();
      relayProbe = new Probe(sentAt, true);
      const res = await signal(msg.whep, await gatheredOffer(relayProbe.pc));
      if (res.status !== 201) throw new Error(`WHEP answered ${res.status}: ${res.body}`);
      await relayProbe.pc.setRemoteDescription({ type: 'answer', sdp: res.body });
      return process.send!({ id: msg.id });
    }
    const sample = {
      t: performance.timeOrigin + performance.now(),
      cpu: process.cpuUsage(),
      framesSent,
      ...(await outboundVideo()),
      relay: { frames: relayProbe?.frames ?? 0, latencies: relayProbe?.latencies ?? [] },
      direct: { frames: directProbe.frames, latencies: directProbe.latencies },
    };
    if (relayProbe) relayProbe.latencies = [];
    directProbe.latencies = [];
    process.send!({ id: msg.id, sample });
  })().catch((e: Error) => {
    process.stderr.write(`publisher: ${e.stack}\n`);
    process.exit(1);
  });
});
