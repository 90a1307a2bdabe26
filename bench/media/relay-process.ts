/// Child process of bench:media: one MediaRoom (the service's relay code) signalled over IPC, reporting its own CPU and memory.
import { MediaRoom, MediaSession, newSessionId } from '../../src/media/media-room';
import { PeerFactory } from '../../src/media/peer-factory';

const peers = new PeerFactory({ publicIp: '127.0.0.1', iceServers: [] });
const room = new MediaRoom('wbn_bench', () => undefined);
let latencies: number[] = [];
room.latencyProbe = (ms) => latencies.push(ms);

type Msg = { id: number; kind: 'publish' | 'play' | 'sample'; sdp?: string };

process.on('message', (msg: Msg) => {
  void (async () => {
    if (msg.kind === 'sample') {
      const sample = { cpu: process.cpuUsage(), rss: process.memoryUsage().rss, latencies, stats: { ...room.stats } };
      latencies = [];
      return process.send!({ id: msg.id, sample });
    }
    const session: MediaSession = { id: newSessionId(), role: msg.kind === 'publish' ? 'publisher' : 'viewer', etag: 'x', pc: peers.create() };
    if (msg.kind === 'publish') room.attachPublisher(session);
    await session.pc.setRemoteDescription({ type: 'offer', sdp: msg.sdp! });
    if (msg.kind === 'play') room.attachViewer(session);
    process.send!({ id: msg.id, answer: await peers.answer(session.pc) });
  })();
});
