// GLSL for the single point draw call. Glyphs follow PlotViz's shapes:
// 0 disc, 1 ball, 2 star, 3 cube, 4 pyramid, 5 cone, 6 cylinder; PLAIN_POINT marks points
// drawn as plain dots of the point size (one-point clusters, or all when glyphs are off).

export const pointVertexShader = /* glsl */ `
attribute vec3 position2;
attribute vec4 rgba;
attribute float size;
attribute float shape;
attribute float visibility;
uniform float uPointScale; // screen pixels of a plain point
uniform float uGlyphScale; // screen pixels of a glyph of size 1
uniform float uPixelRatio;
uniform float uBlend;
varying vec4 vColor;
varying float vShape;
varying float vHighlight;

void main() {
  if (visibility < 0.5) {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: not drawn
    gl_PointSize = 0.0;
    return;
  }
  vec3 p = mix(position, position2, uBlend);
  gl_Position = projectionMatrix * modelViewMatrix * vec4(p, 1.0);
  vHighlight = visibility > 1.5 ? 1.0 : 0.0;
  float pixels = shape > 6.5 ? uPointScale : size * uGlyphScale;
  // Highlighted points (search hits, the selection) grow, and never below a size that shows their ring.
  if (vHighlight > 0.5) pixels = max(pixels * 1.6, 9.0);
  gl_PointSize = max(1.0, pixels * uPixelRatio);
  vColor = rgba;
  vShape = shape;
}
`;

// Only the shapes in use are compiled in (SHAPE_<n> defines, see shapeDefines): software
// renderers execute every branch of a fragment shader, so each unused glyph would cost
// every fragment of every point.
export const pointFragmentShader = /* glsl */ `
varying vec4 vColor;
varying float vShape;
varying float vHighlight;

bool insideTriangle(vec2 p) { return p.y >= -0.8 && abs(p.x) <= 0.95 * (0.9 - p.y) / 1.7; }

bool inside(float s, vec2 p) {
  if (s > 6.5) return dot(p, p) <= 1.0;                         // plain point
#if defined(SHAPE_0) || defined(SHAPE_1)
  if (s < 1.5) return dot(p, p) <= 1.0;                         // disc, ball
#endif
#ifdef SHAPE_2
  if (s < 2.5) {                                                // five-pointed star
    float a = atan(p.y, p.x) - 1.5707963;
    float k = 0.5 + 0.5 * cos(5.0 * a);
    return length(p) <= mix(0.45, 1.0, k * k);
  }
#endif
#ifdef SHAPE_3
  if (s < 3.5) return max(abs(p.x), abs(p.y)) <= 0.8;           // cube
#endif
#ifdef SHAPE_4
  if (s < 4.5) return insideTriangle(p);                        // pyramid
#endif
#ifdef SHAPE_5
  if (s < 5.5) {                                                // cone: triangle on an elliptic base
    vec2 e = (p - vec2(0.0, -0.7)) / vec2(0.8, 0.25);
    return (p.y >= -0.7 && abs(p.x) <= 0.8 * (0.9 - p.y) / 1.6) || dot(e, e) <= 1.0;
  }
#endif
#ifdef SHAPE_6
  vec2 top = (p - vec2(0.0, 0.65)) / vec2(0.6, 0.2);            // cylinder
  vec2 bottom = (p - vec2(0.0, -0.65)) / vec2(0.6, 0.2);
  return (abs(p.x) <= 0.6 && abs(p.y) <= 0.65) || dot(top, top) <= 1.0 || dot(bottom, bottom) <= 1.0;
#endif
  return true;
}

float shade(float s, vec2 p) {
#ifdef SHAPE_1
  if (s > 0.5 && s < 1.5) {                                     // ball: lit sphere
    vec3 n = vec3(p, sqrt(max(0.0, 1.0 - dot(p, p))));
    return 0.35 + 0.65 * max(0.0, dot(n, normalize(vec3(-0.4, 0.5, 0.8))));
  }
#endif
#ifdef SHAPE_3
  if (s > 2.5 && s < 3.5) return (p.x > p.y + 0.9 || p.y > 0.55) ? 1.15 : (p.x > 0.55 ? 0.7 : 0.9); // cube faces
#endif
#if defined(SHAPE_4) || defined(SHAPE_5)
  if (s > 3.5 && s < 5.5) return p.x < 0.0 ? 1.0 : 0.72;        // pyramid, cone: two lit sides
#endif
#ifdef SHAPE_6
  if (s > 5.5 && s < 6.5) return 0.6 + 0.5 * (1.0 - abs(p.x + 0.2) / 0.8); // cylinder: curved side
#endif
  return 1.0;
}

void main() {
  vec2 p = gl_PointCoord * 2.0 - 1.0;
  p.y = -p.y;
  if (!inside(vShape, p)) discard;
  vec3 c = vColor.rgb * shade(vShape, p);
  if (vHighlight > 0.5 && !inside(vShape, p * 1.3)) c = vec3(1.0, 0.9, 0.1); // selection outline
  gl_FragColor = vec4(min(c, vec3(1.0)), vColor.a);
}
`;

export const SHAPE_COUNT = 7;
/** The shape attribute's value for a plain point (sized by uPointScale, not by its cluster). */
export const PLAIN_POINT = 7;

/** The defines that compile in the glyphs of `shapes`, a bit mask of shape numbers. */
export function shapeDefines(shapes: number): Record<string, string> {
  const defines: Record<string, string> = {};
  for (let k = 0; k < SHAPE_COUNT; k++) if (shapes & (1 << k)) defines[`SHAPE_${k}`] = '';
  return defines;
}

export const lineVertexShader = /* glsl */ `
attribute vec4 rgba;
varying vec4 vColor;
void main() {
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  vColor = rgba;
}
`;

export const lineFragmentShader = /* glsl */ `
uniform float uOpacity;
varying vec4 vColor;
void main() { gl_FragColor = vec4(vColor.rgb, vColor.a * uOpacity); }
`;
