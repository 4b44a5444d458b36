// A Node.js client of patchwork.v1.PlacementService (@grpc/grpc-js, the proto loaded at run time by
// @grpc/proto-loader): streams AnalyzePosition until cancelled, reads UPDATES updates that list moves, then
// cancels the call. Prints one JSON line per update read and a last line {"cancelled": ..., "code": ...}.
//
//   node analyze_position.mjs HOST:PORT PROTO_DIR STATE_JSON_FILE [UPDATES]
//
// STATE_JSON_FILE holds the position as GameState's JSON mapping (as the HTTP API takes it).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const [target, protoDir, stateFile, wanted = '3'] = process.argv.slice(2);
const definition = protoLoader.loadSync(join(protoDir, 'patchwork/v1/placement.proto'), {
  keepCase: true, longs: Number, enums: String, defaults: false, oneofs: true, includeDirs: [protoDir],
});
const { PlacementService } = grpc.loadPackageDefinition(definition).patchwork.v1;
const client = new PlacementService(target, grpc.credentials.createInsecure());
const state = JSON.parse(readFileSync(stateFile, 'utf8'));
const request = { state, top: 3, seed: 0, until_cancelled: true, report_interval: { seconds: 0, nanos: 50_000_000 } };

const call = client.AnalyzePosition(request, { deadline: Date.now() + 60_000 });
let read = 0;
let cancelledAt = null;
call.on('data', (update) => {
  if (cancelledAt !== null) return;
  const moves = update.moves || [];
  console.log(JSON.stringify({ iterations: update.iterations || 0, final: !!update.final, moves: moves.map((m) => m.move.text) }));
  if (moves.length && ++read >= Number(wanted)) {
    cancelledAt = Date.now();
    call.cancel();
  }
});
call.on('error', (e) => {
  console.log(JSON.stringify({ cancelled: e.code === grpc.status.CANCELLED, code: e.code, details: e.details }));
  client.close();
  process.exit(e.code === grpc.status.CANCELLED ? 0 : 1);
});
call.on('end', () => {
  console.log(JSON.stringify({ cancelled: false, code: 0, details: 'the stream ended before the cancel' }));
  client.close();
  process.exit(1);
});
