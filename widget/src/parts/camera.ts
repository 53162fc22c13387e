/** chat-camera.js: the camera button, consent card and preview (widget/src/camera), loaded when cfg.webcam.enabled. */
export { bind } from '../chat/preact-bridge.js';
export { useCamera } from '../camera/camera-ui.js';
