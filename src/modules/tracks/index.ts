export { AUDIO_ANALYSIS_JOB } from './tracks.analysis.ts';
export { presentTrack } from './tracks.presenter.ts';
export { tracksRoutes } from './tracks.routes.ts';
export { Track } from './tracks.schemas.ts';
export { MAX_SINGLE_TRACKS } from './tracks.service.ts';
